//go:build unix && (!linux || toolrpc_portable)

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// hostStdout returns a handle on stdout that takes write deadlines when
// stdout is a pipe, so an ending session can stop waiting on a host that no
// longer reads (rpc.Serve bounds its writes then). Without /proc (macOS, and
// Linux under toolrpc_portable) the pipe cannot be reopened as a new open
// file description: stdout is duplicated and the duplicate made
// non-blocking, which Go then polls. The O_NONBLOCK flag is shared with
// whoever else holds the server's own stdout description (a wrapper that
// exec'd it, say); the host's read end is a different description and is not
// affected. Anything else (a terminal, a file, a socket) is returned as is.
func hostStdout() *os.File {
	var st unix.Stat_t
	if unix.Fstat(1, &st) != nil || uint32(st.Mode)&unix.S_IFMT != unix.S_IFIFO {
		return os.Stdout
	}
	fd, err := unix.Dup(1)
	if err != nil {
		return os.Stdout
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return os.Stdout
	}
	return os.NewFile(uintptr(fd), "/dev/stdout")
}
