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
