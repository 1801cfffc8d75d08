//go:build unix

package methods

import "syscall"

// signals are the names process/signal accepts (SPEC §13).
var signals = map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP,
	"QUIT": syscall.SIGQUIT, "KILL": syscall.SIGKILL, "TSTP": syscall.SIGTSTP, "CONT": syscall.SIGCONT}
