package process

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// supported refuses: the process engine needs a Unix process group, signals
// and a pty, which Windows does not have in that form.
func supported() error {
	return fmt.Errorf("%w: processes (SPEC §13) run on Linux and macOS, not Windows; use tools/bash", errors.ErrUnsupported)
}

func rdevOf(*os.File) uint64                    { return 0 }
func inodeOf(*os.File) uint64                   { return 0 }
func signalForeground(int, int, syscall.Signal) {}
func masterUnread(int) int                      { return 0 }
