package limits

import "time"

// Shell sessions of tools/bash (SPEC §6.7).
const (
	// ShellSessionsMax is the most shell sessions one server keeps at once;
	// a command naming a new session past it is refused, naming the live
	// ones.
	ShellSessionsMax = 16
	// ShellSessionIdle is how long a session's shell may wait for its next
	// command; then it is ended (its state lost, said so on the next use).
	ShellSessionIdle = 30 * time.Minute
	// ShellSessionStart bounds how long a session's new shell may take to
	// report ready before the command fails.
	ShellSessionStart = 10 * time.Second
	// ShellSessionAbortGrace is how long a session's shell may take, after a
	// timeout or cancel killed the command's tree, to abandon the rest of
	// the command; past it the shell is ended (the session's state lost).
	ShellSessionAbortGrace = 2 * time.Second
)
