package process

import "syscall"

// signals are the signals SignalNamed knows, by name (SPEC §13); Windows has
// no TSTP or CONT, and a process start refuses there anyway.
var signals = map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP,
	"QUIT": syscall.SIGQUIT, "KILL": syscall.SIGKILL}
