//go:build linux

package main

import (
	"io"
	"sync"
	"time"
)

// gatedReader reads the server's output only while its gate is open: the
// "host stops reading" fault closes the gate, so the pipe fills and the
// server's writes block as they would under a stalled host.
type gatedReader struct {
	r io.ReadCloser

	mu   sync.Mutex
	open chan struct{} // closed while reading is allowed
}

func newGatedReader(r io.ReadCloser) *gatedReader {
	g := &gatedReader{r: r, open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gatedReader) Read(p []byte) (int, error) {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	<-open
	return g.r.Read(p)
}

// pause stops reading until resume.
func (g *gatedReader) pause() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
		g.open = make(chan struct{})
	default:
	}
}

// resume reads again.
func (g *gatedReader) resume() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

// Close closes the pipe and opens the gate, so a blocked Read returns.
func (g *gatedReader) Close() error {
	err := g.r.Close()
	g.resume()
	return err
}

// freezeClock counts the time a session spends frozen (stopped, or its
// output unread), so a call's deadline counts only the time the server
// could work.
type freezeClock struct {
	mu     sync.Mutex
	total  time.Duration
	since  time.Time
	frozen int
}

func (f *freezeClock) freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.frozen == 0 {
		f.since = time.Now()
	}
	f.frozen++
}

func (f *freezeClock) thaw() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.frozen == 0 {
		return
	}
	f.frozen--
	if f.frozen == 0 {
		f.total += time.Since(f.since)
	}
}

// now is the frozen time so far.
func (f *freezeClock) now() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.total
	if f.frozen > 0 {
		t += time.Since(f.since)
	}
	return t
}
