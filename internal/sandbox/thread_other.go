//go:build !linux || toolrpc_portable

package sandbox

// Fork returns nil here: commands start through Wrap (sandbox-exec on
// macOS, the wrapper under toolrpc_portable), or unconfined.
func (r *Resolved) Fork() func(start func() error) (done func(), err error) { return nil }

// Close does nothing here: no thread holds the policy.
func (r *Resolved) Close() {}

// forker is empty here: no thread holds the policy.
type forker struct{}

func newForker() *forker { return nil }
