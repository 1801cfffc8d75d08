package process

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// supported refuses pty mode: Windows gives a process no controlling
// terminal (a ConPTY is a console the process attaches to, with no
// foreground process group, and Wine 8 has none to test it on). Pipe mode
// runs, its tree in a Job Object (procgroup), input detected by SPEC
// §13.1's fallback.
func supported(m Mode) error {
	if m == PTY {
		return fmt.Errorf(`%w: mode "pty" runs on Linux and macOS, not Windows (no controlling terminal); use mode "pipe"`, errors.ErrUnsupported)
	}
	return nil
}

func rdevOf(*os.File) uint64                    { return 0 }
func inodeOf(*os.File) uint64                   { return 0 }
func signalForeground(int, int, syscall.Signal) {}
func masterUnread(int) int                      { return 0 }
