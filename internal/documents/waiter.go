package documents

import (
	"bytes"

	"github.com/toolrpc/toolrpc/internal/rope"
)

// Waiter waits for an open document to hold an exact text: the proof that
// an edit sent to the editor landed in its buffer.
type Waiter struct {
	s    *Store
	abs  string
	want []byte
	ch   chan struct{}

	// Guarded by s.mu.
	matched bool // a version held exactly want
	moved   bool // a version held another text
	closed  bool // the document was closed or dropped
	fired   bool
}

// Watch returns a Waiter for the document abs to hold want. Stop it when
// done.
func (s *Store) Watch(abs string, want []byte) *Waiter {
	w := &Waiter{s: s, abs: abs, want: want, ch: make(chan struct{})}
	s.mu.Lock()
	s.waiters[w] = struct{}{}
	s.mu.Unlock()
	return w
}

// C is closed when the document has held want, or has been closed.
func (w *Waiter) C() <-chan struct{} { return w.ch }

// State reports whether a version of the document held want, whether a
// version held another text, and whether the document was closed or dropped.
func (w *Waiter) State() (matched, moved, closed bool) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.matched, w.moved, w.closed
}

// Stop forgets the waiter.
func (w *Waiter) Stop() {
	w.s.mu.Lock()
	delete(w.s.waiters, w)
	w.s.mu.Unlock()
}

// signal closes C once; s.mu is held.
func (w *Waiter) signal() {
	if !w.fired {
		w.fired = true
		close(w.ch)
	}
}

// notifyLocked tells the waiters of d's file about its new version.
func (s *Store) notifyLocked(d *Doc) {
	for w := range s.waiters {
		if w.abs != d.Abs || w.matched {
			continue
		}
		if equal(d.Text, w.want) {
			w.matched = true
			w.signal()
		} else {
			w.moved = true
		}
	}
}

// equal reports whether t holds exactly b.
func equal(t rope.Text, b []byte) bool {
	if t.Len() != len(b) {
		return false
	}
	same := true
	t.Chunks(func(c []byte) bool {
		same = bytes.Equal(c, b[:len(c)])
		b = b[len(c):]
		return same
	})
	return same
}
