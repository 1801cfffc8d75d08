package capture

import (
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/limits"
)

// Chunk is the value of one $/progress notification of a Bash call (SPEC §6.4).
type Chunk struct {
	// Stream is "stdout" or "stderr".
	Stream string `json:"stream"`
	// Seq starts at 0 for each stream and rises by 1 per chunk.
	Seq int `json:"seq"`
	// Data is valid UTF-8 and never splits a character.
	Data string `json:"data"`
	// SkippedBytes counts the output bytes before Data that no chunk carries.
	SkippedBytes int64 `json:"skippedBytes,omitempty"`
}

// streamConfig holds a Streamer's numbers; tests shrink them.
type streamConfig struct {
	chunkBytes int           // flush once this much is pending
	flush      time.Duration // flush pending output at most this late
	fullBytes  int64         // stream in full up to this many bytes
	throttle   time.Duration // past fullBytes, at most one chunk per throttle
}

func defaultStreamConfig() streamConfig {
	return streamConfig{
		chunkBytes: limits.StreamChunkBytes,
		flush:      limits.StreamFlushInterval,
		fullBytes:  limits.StreamFullBytes,
		throttle:   time.Second / limits.StreamThrottledChunksPerSecond,
	}
}

// Streamer cuts one output stream into chunks and hands them to send, from
// its own goroutine, in order. The first StreamFullBytes bytes are all sent
// (coalesced to StreamChunkBytes or StreamFlushInterval); past them at most
// StreamThrottledChunksPerSecond chunks a second carry the latest output, with
// SkippedBytes counting what was not sent. The last chunk, written by Close, is
// sent at once. Memory is bounded by StreamFullBytes plus two chunks per
// Streamer, and by StreamPendingBytes of unsent full-fidelity output for all
// Streamers together: Write waits for sends only while that shared bound is
// reached. When send fails, streaming stops and Write no longer waits.
type Streamer struct {
	stream string
	send   func(Chunk) error
	cfg    streamConfig
	kick   chan struct{}
	done   chan struct{}
	stop   chan struct{} // closed when send fails or Close starts
	budget *budget
	held   int // bytes of budget held: len(pending) as run last saw it

	mu           sync.Mutex
	pending      []byte // full-fidelity bytes not yet sent
	pendingSince time.Time
	accepted     int64  // bytes taken into full fidelity
	latest       []byte // throttled bytes not yet sent (their end)
	unsent       int64  // throttled bytes since the last throttled chunk
	lastThrottle time.Time
	closed       bool
	failed       bool
	seq          int
}

// NewStreamer starts a Streamer of the named stream ("stdout" or "stderr").
// The caller must call Close.
func NewStreamer(stream string, send func(Chunk) error) *Streamer {
	return newStreamer(stream, send, defaultStreamConfig())
}

func newStreamer(stream string, send func(Chunk) error, cfg streamConfig) *Streamer {
	return newStreamerBudget(stream, send, cfg, pendingBudget)
}

func newStreamerBudget(stream string, send func(Chunk) error, cfg streamConfig, b *budget) *Streamer {
	s := &Streamer{stream: stream, send: send, cfg: cfg, kick: make(chan struct{}, 1), done: make(chan struct{}),
		stop: make(chan struct{}), budget: b}
	go s.run()
	return s
}

// Write queues p for streaming. It never fails; it waits only while the
// unsent full-fidelity output of all Streamers is at StreamPendingBytes.
func (s *Streamer) Write(p []byte) (int, error) {
	n := len(p)
	for {
		s.mu.Lock()
		room := s.cfg.fullBytes - s.accepted
		s.mu.Unlock()
		if room <= 0 || len(p) == 0 {
			break
		}
		got := s.budget.acquire(int(min(int64(len(p)), room)), s.stop)
		if got == 0 {
			return n, nil // failed or closed
		}
		s.queueFull(p[:got])
		p = p[got:]
	}
	if len(p) == 0 {
		return n, nil
	}
	s.mu.Lock()
	if s.closed || s.failed {
		s.mu.Unlock()
		return n, nil
	}
	s.unsent += int64(len(p))
	keep := 2 * s.cfg.chunkBytes
	if len(p) >= keep {
		s.latest = append(s.latest[:0], p[len(p)-keep:]...)
	} else {
		if len(s.latest)+len(p) > keep {
			drop := len(s.latest) + len(p) - keep
			s.latest = s.latest[:copy(s.latest, s.latest[drop:])]
		}
		s.latest = append(s.latest, p...)
	}
	s.mu.Unlock()
	s.wake()
	return n, nil
}

// queueFull appends p, whose budget is held, to the full-fidelity bytes.
func (s *Streamer) queueFull(p []byte) {
	s.mu.Lock()
	if s.closed || s.failed {
		s.mu.Unlock()
		s.budget.release(len(p))
		return
	}
	wake := len(s.pending) == 0
	if wake {
		s.pendingSince = time.Now()
	}
	s.pending = append(s.pending, p...)
	s.held += len(p)
	s.accepted += int64(len(p))
	wake = wake || len(s.pending) >= s.cfg.chunkBytes || s.accepted == s.cfg.fullBytes
	s.mu.Unlock()
	if wake {
		s.wake()
	}
}

func (s *Streamer) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Close sends what is still pending and returns once every chunk has been
// handed to send; no chunk is sent after Close returns.
func (s *Streamer) Close() {
	s.mu.Lock()
	if !s.closed && !s.failed {
		close(s.stop)
	}
	s.closed = true
	s.mu.Unlock()
	s.wake()
	<-s.done
}

// Chunks returns the number of chunks sent (the last seq + 1).
func (s *Streamer) Chunks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

func (s *Streamer) run() {
	defer close(s.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		s.mu.Lock()
		c, wait, exit := s.next(time.Now())
		freed := s.held - len(s.pending)
		s.held = len(s.pending)
		s.mu.Unlock()
		s.budget.release(freed)
		if c != nil {
			if err := s.send(*c); err != nil {
				s.mu.Lock()
				if !s.closed && !s.failed {
					close(s.stop)
				}
				s.failed = true
				s.mu.Unlock()
			} else {
				s.mu.Lock()
				s.seq++
				s.mu.Unlock()
			}
			continue
		}
		if exit {
			return
		}
		if wait < 0 {
			<-s.kick
			continue
		}
		timer.Reset(wait)
		select {
		case <-s.kick:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// next returns the chunk to send now, else how long to wait (-1: until
// woken), or exit once closed and everything is sent. s.mu is held.
func (s *Streamer) next(now time.Time) (c *Chunk, wait time.Duration, exit bool) {
	if s.failed {
		s.pending, s.latest = nil, nil
		return nil, -1, s.closed
	}
	if len(s.pending) > 0 {
		fidelityOver := s.accepted >= s.cfg.fullBytes
		due := len(s.pending) >= s.cfg.chunkBytes || s.closed || fidelityOver ||
			now.Sub(s.pendingSince) >= s.cfg.flush
		if !due {
			return nil, s.cfg.flush - now.Sub(s.pendingSince), false
		}
		n := cut.PrefixWithin(s.pending, s.cfg.chunkBytes)
		if n == len(s.pending) && !s.closed {
			n = cut.CompletePrefix(s.pending)
		}
		if n == 0 {
			if !fidelityOver {
				return nil, -1, false // only the start of a character: wait for the rest
			}
			// The fidelity budget ended inside a character: the throttled
			// part carries those bytes.
			s.unsent += int64(len(s.pending))
			s.latest = append(append([]byte(nil), s.pending...), s.latest...)
			s.pending = s.pending[:0]
			return s.next(now)
		}
		c = &Chunk{Stream: s.stream, Seq: s.seq, Data: cut.Repair(s.pending[:n])}
		s.pending = s.pending[:copy(s.pending, s.pending[n:])]
		if len(s.pending) == 0 {
			s.pending = nil // release the full-fidelity buffer
		}
		return c, 0, false
	}
	if s.unsent > 0 {
		if !s.closed && now.Sub(s.lastThrottle) < s.cfg.throttle {
			return nil, s.cfg.throttle - now.Sub(s.lastThrottle), false
		}
		end := len(s.latest)
		if !s.closed {
			end = cut.CompletePrefix(s.latest)
		}
		start := cut.SuffixWithin(s.latest[:end], s.cfg.chunkBytes)
		data := cut.Repair(s.latest[start:end])
		skipped := s.unsent - int64(len(s.latest)-start)
		s.unsent = int64(len(s.latest) - end)
		s.latest = s.latest[:copy(s.latest, s.latest[end:])]
		s.lastThrottle = now
		if data == "" && skipped == 0 {
			return nil, -1, s.closed && s.unsent == 0
		}
		return &Chunk{Stream: s.stream, Seq: s.seq, Data: data, SkippedBytes: skipped}, 0, false
	}
	return nil, -1, s.closed
}
