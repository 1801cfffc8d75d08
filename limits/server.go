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
	// EndingWriteGrace is how long, once the session is ending (exit, end of
	// input, host death, SIGTERM), a write to the host may still block: a
	// host that stopped reading cannot keep the server alive.
	EndingWriteGrace = 1 * time.Second
	// ExitBackstop bounds how long an ending session waits for its calls to
	// reply when the output cannot take a write deadline (a terminal, a
	// regular file); past it the server exits without them.
	ExitBackstop = 5 * time.Second
	// SoftMemoryBytes is the Go runtime's soft memory limit for the server
	// (unless GOMEMLIMIT is set): the collector works harder as the heap
	// nears it, instead of letting garbage double the live heap. What the
	// server keeps alive is bounded by the capture caps of at most
	// MaxConcurrentCalls calls plus StreamPendingBytes.
	SoftMemoryBytes = 128 * MiB
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
