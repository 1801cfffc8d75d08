package conformance

import (
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// linuxOnly skips the test outside Linux, saying why it needs Linux.
func linuxOnly(testing.TB, string) {}

// becomeSubreaper makes this process the child subreaper of its
// descendants: an orphan is reparented here.
func becomeSubreaper() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// unreadBytes is how many bytes wait in the pipe f reads.
func unreadBytes(f *os.File) int {
	n, _ := unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ)
	return n
}

// killedWithParent is the SysProcAttr of a child the kernel kills when this
// test binary dies.
func killedWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
