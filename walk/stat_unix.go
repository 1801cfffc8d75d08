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

// openAt opens the regular file name of the open directory dirfd for
// reading (never following a symlink, never blocking on a FIFO) and stats
// it through the descriptor: one path lookup of one name for both. ok is
// false, and nothing is left open, when it cannot be opened or is not a
// regular file.
func openAt(dirfd int, name string) (fd int, st fileStat, ok bool) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fileStat{}, false
	}
	var s unix.Stat_t
	if unix.Fstat(fd, &s) != nil || uint32(s.Mode)&unix.S_IFMT != unix.S_IFREG {
		_ = unix.Close(fd)
		return -1, fileStat{}, false
	}
	return fd, fileStat{typ: typeReg, mtime: s.Mtim.Nano(), size: s.Size}, true
}

// closeFD closes a descriptor openAt returned.
func closeFD(fd int) { _ = unix.Close(fd) }

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
