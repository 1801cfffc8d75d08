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
)
