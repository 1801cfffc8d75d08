package limits

import "time"

// Server concurrency and host watching (SPEC §1).
const (
	// MaxConcurrentCalls bounds the requests running at once; further ones
	// queue (and stay cancellable) until a slot frees.
	MaxConcurrentCalls = 64
	// HostPollInterval is how often the host's processId is checked when no
	// pidfd is available.
	HostPollInterval = 250 * time.Millisecond
)

// MCP mode (`toolrpc mcp`, SPEC §12).
const (
	// MCPHeartbeatInterval bounds the silence of a tool call that carries a
	// progressToken: a notifications/progress goes out at least this often,
	// so clients that reset their request timeout on progress let a silent
	// command finish.
	MCPHeartbeatInterval = 5 * time.Second
	// MCPProgressSettle is the least time between a call's last progress
	// notification and its result. The official TypeScript SDK handles a
	// notification a microtask after a response read in the same chunk, so
	// a chunk written just before the result reaches a retired handler and
	// is reported as a protocol error (typescript-sdk#2580); the pause lets
	// the client read the two apart.
	MCPProgressSettle = 5 * time.Millisecond
)
