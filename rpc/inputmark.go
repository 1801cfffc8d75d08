package rpc

import (
	"context"
	"io"
	"sync"
)

// inputMarks lets a call wait until every message that arrived with its
// request has been handled, so that a $/cancelRequest written together with
// a request is always seen before the call starts (SPEC §1).
type inputMarks struct {
	// mark is, once ReadObject returned a request, how many input bytes had
	// arrived by then (read, or waiting in the pipe). Only the read loop
	// touches it.
	mark int64
	// handled counts the input bytes whose messages have been handled;
	// handledCh is closed (and replaced) each time it grows.
	hmu       sync.Mutex
	handled   int64
	handledCh chan struct{}
}

// countingReader counts the bytes read from the input.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// setHandled records that every message in the first n input bytes has been
// handled, waking the calls that wait for it.
func (s *inputMarks) setHandled(n int64) {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	if n <= s.handled {
		return
	}
	s.handled = n
	close(s.handledCh)
	s.handledCh = make(chan struct{})
}

// inputMark returns, right after ReadObject returned a request, the input
// position up to which everything had already arrived: a $/cancelRequest
// sent together with the request lies before it.
func (s *inputMarks) inputMark() int64 { return s.mark }

// awaitHandled waits until every message before the input position mark has
// been handled (so a cancel that arrived with a request has been seen), or
// ctx is done, or the input has ended.
func (s *inputMarks) awaitHandled(ctx context.Context, mark int64) {
	for {
		s.hmu.Lock()
		done, ch := s.handled >= mark, s.handledCh
		s.hmu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}
