//go:build linux

package beneath

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// openat2Missing is set once the kernel answered ENOSYS (before Linux 5.6).
var openat2Missing bool

// openFD opens name relative to dirfd (unix.AT_FDCWD, or a held directory,
// which name must then stay beneath) following no symlink in any component.
func openFD(dirfd int, name string, flag int, perm uint32) (int, error) {
	flag |= unix.O_CLOEXEC
	if !openat2Missing {
		how := unix.OpenHow{Flags: uint64(flag), Resolve: unix.RESOLVE_NO_SYMLINKS}
		if dirfd != unix.AT_FDCWD {
			how.Resolve |= unix.RESOLVE_BENEATH
		}
		if flag&(unix.O_CREAT|unix.O_TMPFILE) != 0 {
			how.Mode = uint64(perm)
		}
		for range 16 {
			fd, err := unix.Openat2(dirfd, name, &how)
			switch {
			case err == nil:
				return fd, nil
			case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
				continue
			case errors.Is(err, unix.ENOSYS):
				openat2Missing = true
			case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV):
				return -1, ErrSymlink
			default:
				return -1, err
			}
			break
		}
	}
	return walkFD(dirfd, name, flag, perm)
}

// walkFD is openFD without openat2: one O_NOFOLLOW open per component.
func walkFD(dirfd int, name string, flag int, perm uint32) (int, error) {
	cur, owned := dirfd, false
	if strings.HasPrefix(name, "/") {
		fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		cur, owned = fd, true
	}
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '/' })
	if len(parts) == 0 {
		parts = []string{"."}
	}
	for i, p := range parts {
		if p == ".." {
			if owned {
				_ = unix.Close(cur)
			}
			return -1, ErrSymlink
		}
		f, m := unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(0)
		if i == len(parts)-1 {
			f, m = flag|unix.O_NOFOLLOW, perm
		}
		fd, err := unix.Openat(cur, p, f, m)
		if owned {
			_ = unix.Close(cur)
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) && i < len(parts)-1 {
			return -1, ErrSymlink
		}
		if err != nil {
			return -1, err
		}
		cur, owned = fd, true
	}
	return cur, nil
}
