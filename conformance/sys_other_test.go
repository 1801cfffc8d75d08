//go:build !linux

package conformance

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// linuxOnly skips the test outside Linux, saying why it needs Linux.
func linuxOnly(t testing.TB, why string) {
	t.Helper()
	t.Skipf("Linux only: %s", why)
}

// becomeSubreaper fails: only Linux has child subreapers.
func becomeSubreaper() error { return errors.ErrUnsupported }

// unreadBytes is 0: the tests that ask are Linux only.
func unreadBytes(*os.File) int { return 0 }

// killedWithParent is nil: only Linux kills a child with its parent.
func killedWithParent() *syscall.SysProcAttr { return nil }
