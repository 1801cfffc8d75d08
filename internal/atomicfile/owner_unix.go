//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of the file like describes, when
// they differ from this process's and the process may (best effort: only a
// privileged process may give a file away).
func keepOwner(f *os.File, like fs.FileInfo) {
	st, ok := like.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid() {
		return
	}
	if f.Chown(int(st.Uid), int(st.Gid)) == nil {
		// Chown clears setuid/setgid; put the mode back.
		_ = f.Chmod(like.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
	}
}
