//go:build linux && !toolrpc_portable

package filetable

import "golang.org/x/sys/unix"

// lstatStamp returns what lstat (stat with follow) says of path; the zero
// stamp when it cannot be stat'ed.
func lstatStamp(path string, follow bool) stamp {
	var st unix.Stat_t
	var err error
	if follow {
		err = unix.Stat(path, &st)
	} else {
		err = unix.Lstat(path, &st)
	}
	if err != nil {
		return stamp{}
	}
	return stamp{ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), mode: st.Mode}
}
