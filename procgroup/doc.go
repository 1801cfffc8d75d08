// Package procgroup runs a shell command so that Kill leaves no live
// descendant: after Kill returns, no process the command started is alive,
// whether it stayed in the command's process group, called setsid, or
// double-forked — and none outlives the process that started it, even when
// that process is SIGKILLed.
//
// # Running
//
// Start runs the command with bash -c (sh -c when bash is missing) in a new
// process group, with stdin from the given text or /dev/null, never the
// server's own stdin or stdout. Output goes through pipes the package owns, so
// waiting never blocks on a grandchild that still holds them. Every process of
// the command carries a per-call cookie in its environment (CookieEnv).
//
// # Killing
//
// The shell's exit is detected with waitid(WNOWAIT), so its pid and process
// group id stay reserved until Kill has finished. Where a writable cgroup v2
// hierarchy with cgroup.kill exists (probed once), each command runs in its own
// cgroup and Kill writes cgroup.kill. Elsewhere the server becomes a child
// subreaper; Kill signals the process group and then sweeps /proc for
// descendants and cookie holders, round after round until a round finds none,
// reaping by pid the ones reparented to the server (never wait4(-1), which
// would steal other callers' exit statuses).
//
// # Waiting
//
// Wait returns once the shell has exited, the pipes have had a short grace to
// reach end of file, whatever is left of the command has been killed, and both
// pipes are drained: a command's processes never outlive its Wait.
//
// # Surviving the server
//
// The first Start (or Guard) starts a guardian: this binary re-executed with a
// hidden argument (dispatched by this package's init), in its own process
// group, reading a pipe only the server writes. When the server dies — even by
// SIGKILL, which no handler sees — the pipe reaches end of file (backed by a
// pidfd on the server and a parent-death signal), and the guardian writes
// cgroup.kill in the server's call cgroups and sweeps /proc for every process
// whose cookie names the server (each cookie starts with the server's pid and
// start time), with their descendants. A guardian that dies is replaced.
// Guard also sweeps, once, what servers that died without a guardian left:
// populated call cgroups of dead servers are killed, then removed, and
// processes whose cookie names a dead server are killed.
//
// What remains possible: a command killed in the moments before the first
// guardian is up or between a guardian's death and its replacement is left to
// the next server's start-up sweep; without a cgroup, a process that cleared
// its environment and is no longer a descendant of a cookie holder when the
// sweep runs escapes it; a process in uninterruptible sleep dies only when it
// wakes.
//
// Its API is toolrpc's own: it serves the server and may change between
// minor versions. The stable surfaces are the wire protocol (docs/protocol.md)
// and the packages client, wire and lspframe.
package procgroup
