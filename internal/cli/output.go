package cli

import (
	"os"
	"strconv"
	"sync"
	"time"
)

// logQueueLines bounds the log lines waiting for a stderr nobody reads.
const logQueueLines = 256

// queuedWriter hands each write to a goroutine that writes it out, so a log
// line never blocks the server on a full stderr pipe (a host that stopped
// reading it). When logQueueLines lines are waiting, further ones are
// dropped and counted in a line written once the queue has room again.
type queuedWriter struct {
	mu      sync.Mutex
	queue   chan queued
	dropped int
}

// queued is one write, or (b nil) a flush mark closed once reached.
type queued struct {
	b    []byte
	mark chan struct{}
}

func newQueuedWriter(w *os.File) *queuedWriter {
	q := &queuedWriter{queue: make(chan queued, logQueueLines)}
	go func() {
		for e := range q.queue {
			if e.mark != nil {
				close(e.mark)
				continue
			}
			_, _ = w.Write(e.b)
		}
	}()
	return q
}

// Write queues a copy of p; it never blocks and never fails.
func (q *queuedWriter) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dropped > 0 && len(q.queue) < cap(q.queue)-1 {
		q.queue <- queued{b: []byte("toolrpc: " + strconv.Itoa(q.dropped) + " log lines dropped: stderr was not read\n")}
		q.dropped = 0
	}
	select {
	case q.queue <- queued{b: append([]byte(nil), p...)}:
	default:
		q.dropped++
	}
	return len(p), nil
}

// flush waits, at most d, until what was queued before it has been written.
func (q *queuedWriter) flush(d time.Duration) {
	mark := make(chan struct{})
	select {
	case q.queue <- queued{mark: mark}:
	default:
		return // full: stderr is not being read
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-mark:
	case <-t.C:
	}
}
