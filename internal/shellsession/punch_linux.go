package shellsession

import (
	"os"

	"golang.org/x/sys/unix"
)

// punchHole gives back the blocks of f's first n bytes (n a multiple of
// the block size); f's size and every reader's offset stay.
func punchHole(f *os.File, n int64) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		ferr = unix.Fallocate(int(fd), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 0, n)
	}); err != nil {
		return err
	}
	return ferr
}
