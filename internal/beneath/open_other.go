//go:build unix && !linux

package beneath

import (
	"errors"

	"golang.org/x/sys/unix"
)

// openFD opens name relative to dirfd with O_NOFOLLOW (and, on macOS,
// O_NOFOLLOW_ANY: no symlink in any component).
func openFD(dirfd int, name string, flag int, perm uint32) (int, error) {
	fd, err := unix.Openat(dirfd, name, flag|unix.O_CLOEXEC|unix.O_NOFOLLOW|noFollowAny, perm)
	if errors.Is(err, unix.ELOOP) {
		return -1, ErrSymlink
	}
	return fd, err
}
