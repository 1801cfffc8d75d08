//go:build linux && !toolrpc_portable

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// hostStdout returns a handle on stdout that takes write deadlines when
// stdout is a pipe, so an ending session can stop waiting on a host that no
// longer reads (rpc.Serve bounds its writes then). The pipe is reopened
// through /proc rather than switched to non-blocking in place: the new open
// file description is the server's alone, so whoever else holds the pipe is
// not affected. Anything else (a terminal, a file, a socket) is returned as
// is.
func hostStdout() *os.File {
	var st unix.Stat_t
	if unix.Fstat(1, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return os.Stdout
	}
	// O_NONBLOCK: the open must not wait for a reader, and Go then polls
	// the pipe, which is what gives it deadlines.
	f, err := os.OpenFile("/proc/self/fd/1", os.O_WRONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return os.Stdout
	}
	return f
}
