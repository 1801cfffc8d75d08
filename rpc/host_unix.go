//go:build unix && (!linux || toolrpc_portable)

package rpc

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/internal/logging"
	"github.com/toolrpc/toolrpc/limits"
)

// watchHost calls gone once the process pid has exited, polling every
// limits.HostPollInterval (macOS, and Linux under toolrpc_portable: no
// pidfd). A zombie counts as exited: a host whose parent has not reaped it
// yet is dead, though signal 0 still reaches it.
func watchHost(pid int, _ logging.Logf, gone func()) {
	for {
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) || zombie(pid) {
			gone()
			return
		}
		time.Sleep(limits.HostPollInterval)
	}
}
