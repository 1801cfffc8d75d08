// Package procgroup runs a shell command so that Kill leaves no live
// descendant: after Kill returns, no process the command started is alive,
// whether it stayed in the command's process group, called setsid, or
// double-forked.
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
package procgroup
