//go:build unix && (!linux || toolrpc_portable)

package rpc

import (
	"errors"
	"log"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/limits"
)

// watchHost calls gone once the process pid has exited, polling with
// signal 0 every limits.HostPollInterval (macOS, and Linux under
// toolrpc_portable: no pidfd).
func watchHost(pid int, _ *log.Logger, gone func()) {
	for {
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			gone()
			return
		}
		time.Sleep(limits.HostPollInterval)
	}
}
