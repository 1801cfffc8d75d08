//go:build unix

package conformance

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"golang.org/x/sys/unix"
)

// The calls of the suite that differ between systems, so that every file
// builds and vets for the six release targets (docs/platforms.md). On
// Windows (sys_windows_test.go) they fail with errors.ErrUnsupported where
// Windows has no such call, and the tests that need them skip there.

// sigStop is SIGSTOP.
const sigStop = syscall.SIGSTOP

// signalPid sends sig to process pid.
func signalPid(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// fifo makes a FIFO at path.
func fifo(t testing.TB, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o644))
}

// sessionOf is a process's session id, 0 when it is gone.
func sessionOf(pid int) int {
	sid, err := unix.Getsid(pid)
	if err != nil {
		return 0
	}
	return sid
}

// reapUntil reaps every child until pid has exited and returns its exit
// status (128+signal for a signal), or 2 on an error of wait.
func reapUntil(pid int) (int, error) {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 2, err
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ws.ExitStatus(), nil
	}
}

// lockDir holds an exclusive flock on dir until t ends, so tests of
// different processes that rebuild files in dir (the re-runs through ssh
// and podman run at once, and each runs tsc in clients/typescript) take
// turns; within one process the lock is taken by one test at a time too,
// as each takes it on a descriptor of its own.
func lockDir(t testing.TB, dir string) {
	t.Helper()
	f, err := os.Open(dir)
	require.NoError(t, err)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	require.NoError(t, err, "flock %s", dir)
	t.Cleanup(func() { f.Close() })
}
