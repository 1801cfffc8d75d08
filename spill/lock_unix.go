//go:build unix

package spill

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// noFollow keeps a lock file's open from following a symlink a command put
// in its place (the scratch dir is writable by commands, SPEC §14).
const noFollow = unix.O_NOFOLLOW

// errLocked is what tryLock returns when another process holds the lock.
var errLocked = unix.EWOULDBLOCK

// tryLock takes an exclusive flock on f without waiting; it is released when
// f is closed (or its process dies).
func tryLock(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if err != nil && !errors.Is(err, errLocked) {
		return fmt.Errorf("flock: %w", err)
	}
	return err
}
