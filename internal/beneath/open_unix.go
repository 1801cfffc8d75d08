//go:build unix

package beneath

import (
	"os"

	"golang.org/x/sys/unix"
)

// OpenFD opens abs (absolute, every symlink resolved) with flag, following
// no symlink (on Linux and macOS in no component; elsewhere in the last),
// and returns the raw descriptor (close-on-exec).
func OpenFD(abs string, flag int) (int, error) { return openFD(unix.AT_FDCWD, abs, flag, 0) }

// Open is OpenFD as an *os.File; perm applies when flag creates.
func Open(abs string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := openFD(unix.AT_FDCWD, abs, flag, uint32(perm.Perm()))
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: abs, Err: err}
	}
	return os.NewFile(uintptr(fd), abs), nil
}
