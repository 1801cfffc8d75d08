//go:build unix

package process

import "syscall"

// signals are the signals SignalNamed knows, by name (SPEC §13).
var signals = map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP,
	"QUIT": syscall.SIGQUIT, "KILL": syscall.SIGKILL, "TSTP": syscall.SIGTSTP, "CONT": syscall.SIGCONT}
