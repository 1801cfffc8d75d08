package methods

import "syscall"

// signals are the names process/signal accepts (SPEC §13); Windows has no
// TSTP or CONT, and process/start refuses there anyway.
var signals = map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP,
	"QUIT": syscall.SIGQUIT, "KILL": syscall.SIGKILL}
