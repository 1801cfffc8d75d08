// Package shellsession keeps named, long-lived bash shells for tools/bash
// (SPEC §6.7) so that each command keeps every SPEC §6 guarantee of a fresh
// bash -c: its own stdout head and stderr tail with their caps, markers and
// spill files, its streamed chunks, its exit code, and a timeout or cancel
// that kills its whole process tree, while the shell, and with it the
// working directory, variables, functions, aliases and options, carries on
// to the next command.
//
// # How a command runs
//
// A session's shell is one bash started as a procgroup tree (its own cgroup
// where the machine has them) under the sandbox policy in force when it
// starts. Its script is a private file the server appends each command to
// (a file, not a pipe: bash reads a pipe one byte per read), and its stdin
// is the wake fifo: after the driver's lines of each command the shell
// waits for a byte there, which the server writes once the next command is
// appended. So every command is parsed and run at the script's top level,
// in the shell itself. For each command the server has two fresh fifos,
// made while the session was idle; the command runs with its stdout and
// stderr on them, stdin from /dev/null or a file holding the call's stdin
// text, and a fresh cookie (procgroup.CookieEnv) in the environment of
// every process it starts. The exit status comes back on the shell's own
// stdout, the status fifo, which the command's redirections hide from it,
// with a token the command cannot see: the line that carries it is not
// parsed until the command has ended. Redirections such as
// exec >file last until the command's end only.
//
// # Timeout and cancel
//
// The server sends the shell SIGUSR2, whose trap abandons the rest of the
// command (break out of every loop at the top level), and kills every holder
// of the command's cookie and their descendants (procgroup.KillCookie). A
// command that is inside a function or a sourced file when the abort comes,
// or whose shell does not come back within limits.ShellSessionAbortGrace,
// ends the shell: the result says the state was lost.
//
// # Background jobs
//
// A job a command leaves running stays in the session. Output it writes after
// its command's status has come back is read and discarded, and counted in
// the next result's session.backgroundBytes; it is never attributed to a
// later command. It dies with the session.
package shellsession
