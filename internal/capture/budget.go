package capture

import (
	"sync"

	"github.com/toolrpc/toolrpc/limits"
)

// budget is a count of bytes shared by many holders: acquire takes what is
// free (waiting while nothing is), release gives bytes back.
type budget struct {
	mu   sync.Mutex
	free int
	wake chan struct{} // closed and replaced when bytes are released
}

func newBudget(n int) *budget { return &budget{free: n, wake: make(chan struct{})} }

// pendingBudget bounds the full-fidelity output all Streamers of the process
// hold unsent together: past it, a Streamer's Write waits for chunks to be
// sent, so the command's output is paced by the host's reading instead of
// piling up in memory.
var pendingBudget = newBudget(limits.StreamPendingBytes)

// acquire takes between 1 and n bytes (n > 0), waiting while none is free.
// It returns 0, taking nothing, once stop is closed.
func (b *budget) acquire(n int, stop <-chan struct{}) int {
	for {
		b.mu.Lock()
		if b.free > 0 {
			got := min(n, b.free)
			b.free -= got
			b.mu.Unlock()
			return got
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-stop:
			return 0
		}
	}
}

// release gives n bytes back (n ≥ 0).
func (b *budget) release(n int) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}
