package spill

import (
	"os"

	"golang.org/x/sys/windows"
)

// noFollow: Windows has no sandbox, and no O_NOFOLLOW.
const noFollow = 0

// errLocked is what tryLock returns when another process holds the lock.
var errLocked = windows.ERROR_LOCK_VIOLATION

// tryLock takes an exclusive LockFileEx lock on f's first byte without
// waiting; it is released when f is closed (or its process dies).
func tryLock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}
