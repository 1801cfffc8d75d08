//go:build linux && !toolrpc_portable

package rpc

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/internal/logging"
	"github.com/toolrpc/toolrpc/limits"
)

// watchHost calls gone once the process pid has exited. It waits on a pidfd
// where the kernel offers one, else polls with signal 0.
func watchHost(pid int, logger logging.Logf, gone func()) {
	if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, -1)
			if err != nil && errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				logger.Printf("poll host pidfd: %v; falling back to polling", err)
				break
			}
			if n > 0 {
				gone()
				return
			}
		}
	}
	for {
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			gone()
			return
		}
		time.Sleep(limits.HostPollInterval)
	}
}
