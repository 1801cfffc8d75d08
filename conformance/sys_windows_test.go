package conformance

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"testing"
)

// sigStop stands for SIGSTOP, which Windows does not have: signalPid
// refuses it.
const sigStop = syscall.Signal(0x13)

// signalPid kills process pid for SIGKILL; Windows has no other signal to
// send.
func signalPid(pid int, sig syscall.Signal) error {
	if sig != syscall.SIGKILL {
		return errors.ErrUnsupported
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// fifo skips the test: Windows has no FIFOs in the file system.
func fifo(t testing.TB, _ string) { t.Skip("Windows has no FIFOs") }

// sessionOf is 0: Windows has no sessions of processes.
func sessionOf(int) int { return 0 }

// reapUntil fails: the launcher that reaps is Linux only.
func reapUntil(int) (int, error) { return 2, errors.ErrUnsupported }

// dirLocks serialises lockDir's holders: on Windows only one test process
// runs (the re-runs that overlap are Linux only), so a lock within the
// process is the whole of it.
var dirLocks sync.Mutex

// lockDir holds dirLocks until t ends.
func lockDir(t testing.TB, _ string) {
	dirLocks.Lock()
	t.Cleanup(dirLocks.Unlock)
}
