//go:build unix

package walk

import (
	"os"

	"golang.org/x/sys/unix"
)

// fstatat lstats name in the open directory dirfd.
func fstatat(dirfd int, name string) (fileStat, bool) {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return fileStat{}, false
	}
	typ := typeOther
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFDIR:
		typ = typeDir
	case unix.S_IFREG:
		typ = typeReg
	}
	return fileStat{typ: typ, mtime: st.Mtim.Nano(), size: st.Size}, true
}

// openFile opens a file for reading without blocking on a FIFO; with
// noFollow, a symlink is refused.
func openFile(path string, noFollow bool) (*os.File, error) {
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK
	if noFollow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
