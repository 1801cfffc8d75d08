// Package shell runs one command to completion with bounded, announced output:
// whatever the command prints, Run returns at most a head of stdout and a tail
// of stderr within the SPEC §6 budgets, each cut marked with the exact §6.2
// marker, and no process the command started is alive when Run returns.
//
// # Running
//
// Run starts the command as a procgroup tree (Start), streams both outputs to
// Spec.Progress as they are read, and waits for the shell to exit, for
// Spec.Timeout to pass, or for ctx to end. On a timeout or a cancel the whole
// tree is killed and Run returns the partial Result together with a
// *TimeoutError or a *CancelledError.
//
// # Pieces
//
// The parts of Run are exported for other engines that run commands (the
// SPEC §13 process tools): Environ is the environment policy every command
// gets, Env validates a caller's variables, Start starts a tree with that
// policy, and Cut bounds one captured stream and spills its copy under
// SpillLabel's name when it was cut.
package shell
