//go:build !linux || toolrpc_portable

package conformance

// rootForksFromThread: a Linux server running as root forks each sandboxed
// command from a thread it confined once (SPEC §14); the portable build, like
// macOS, starts each one through the wrapper.
const rootForksFromThread = false
