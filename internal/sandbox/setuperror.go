package sandbox

import "github.com/toolrpc/toolrpc/internal/sandbox/confine"

// SetupError is a confined thread that could not be set up: the command was
// not run (SPEC §14 never runs a command unconfined).
type SetupError struct{ err error }

func (e *SetupError) Error() string {
	return confine.FailPrefix + e.err.Error() + "; the command did not run"
}

func (e *SetupError) Unwrap() error { return e.err }
