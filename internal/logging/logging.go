// Package logging is the one way toolrpc's engines log: each takes a Logf,
// and a Queue holds lines until a call writes them, so an engine's background
// work never writes to the host's log while no call runs (a host's one-shot
// call returns before an idle engine could write to it).
package logging

import (
	"fmt"
	"sync"
)

// Logf logs one line, formatted as fmt.Sprintf does. A nil Logf discards.
type Logf func(format string, args ...any)

// Printf logs through l; a nil l discards the line.
func (l Logf) Printf(format string, args ...any) {
	if l != nil {
		l(format, args...)
	}
}

// Queue holds log lines until Flush writes them through its Logf. It is safe
// for concurrent use; the zero value discards on Flush.
type Queue struct {
	logf   Logf
	prefix string

	mu    sync.Mutex
	lines []string
}

// NewQueue returns a queue that flushes through logf, each line after prefix.
func NewQueue(logf Logf, prefix string) *Queue { return &Queue{logf: logf, prefix: prefix} }

// Printf queues one line.
func (q *Queue) Printf(format string, args ...any) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.lines = append(q.lines, q.prefix+fmt.Sprintf(format, args...))
}

// Flush writes the queued lines, oldest first, and empties the queue.
func (q *Queue) Flush() {
	q.mu.Lock()
	lines := q.lines
	q.lines = nil
	q.mu.Unlock()
	for _, l := range lines {
		q.logf.Printf("%s", l)
	}
}
