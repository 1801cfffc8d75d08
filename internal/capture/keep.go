package capture

import (
	"bytes"
	"slices"

	"github.com/toolrpc/toolrpc/internal/cut"
)

// Snapshot is what a Head or Tail retained of a stream, and what it counted.
type Snapshot struct {
	// Text is the retained text: whole lines, or part of a single line too
	// long for the cap.
	Text []byte
	// Bytes and Lines count everything written (lines as in SPEC §2).
	Bytes, Lines int
	// OmittedBytes and OmittedLines count what Text does not hold: Bytes
	// minus len(Text), Lines minus the lines of Text (a partly kept line
	// counts as kept).
	OmittedBytes, OmittedLines int
	// EdgeLineBytes is the full length, without its ending, of the first line
	// (Head) or the last line (Tail) of the stream.
	EdgeLineBytes int
}

func snapshot(text []byte, c *cut.LineCounter, edge int) Snapshot {
	lines := cut.CountLines(text)
	return Snapshot{
		Text:          text,
		Bytes:         c.Bytes(),
		Lines:         c.Lines(),
		OmittedBytes:  c.Bytes() - len(text),
		OmittedLines:  c.Lines() - lines,
		EdgeLineBytes: edge,
	}
}

// Head retains the first maxBytes bytes and maxLines lines of a stream and
// counts the rest. It is not safe for concurrent use.
type Head struct {
	maxBytes, maxLines int
	buf                []byte
	newlines           int  // "\n" in buf
	full               bool // something was dropped
	count              cut.LineCounter
}

// NewHead returns a Head with the given caps.
func NewHead(maxBytes, maxLines int) *Head {
	return &Head{maxBytes: maxBytes, maxLines: maxLines}
}

// Write retains what fits of p and counts all of it. It never fails.
func (h *Head) Write(p []byte) (int, error) {
	_, _ = h.count.Write(p)
	if h.full || len(p) == 0 {
		return len(p), nil
	}
	take := p[:min(h.maxBytes-len(h.buf), len(p))]
	n := bytes.Count(take, []byte{'\n'})
	if h.newlines+n >= h.maxLines {
		// Stop right after the maxLines-th "\n".
		end := 0
		for range h.maxLines - h.newlines {
			end += bytes.IndexByte(take[end:], '\n') + 1
		}
		take = take[:end]
		n = h.maxLines - h.newlines
	}
	if len(take) < len(p) {
		h.full = true
	}
	if need := len(h.buf) + len(take); need > cap(h.buf) {
		// Grow by doubling, but never past maxBytes (append would).
		nb := make([]byte, len(h.buf), min(max(need, 2*cap(h.buf), 4096), h.maxBytes))
		copy(nb, h.buf)
		h.buf = nb
	}
	h.buf = append(h.buf, take...)
	h.newlines += n
	return len(p), nil
}

// Snapshot returns what was retained. When something was dropped, a line the
// cap cut through is not retained, unless it is the only line.
func (h *Head) Snapshot() Snapshot {
	text := h.buf
	if h.full {
		if nl := bytes.LastIndexByte(text, '\n'); nl >= 0 {
			text = text[:nl+1]
		}
	}
	return snapshot(text, &h.count, h.count.FirstLineBytes())
}

// Tail retains the last maxBytes bytes and maxLines lines of a stream and
// counts the rest. It is a ring that grows as output arrives and never holds
// more than maxBytes bytes. It is not safe for concurrent use.
type Tail struct {
	maxBytes, maxLines int
	buf                []byte // the ring; len(buf) is its capacity, at most maxBytes
	start, n           int    // the retained bytes are n bytes from buf[start], wrapping
	dropped            bool   // bytes before the retained ones were dropped
	prevNL             bool   // the last dropped byte was "\n"
	count              cut.LineCounter
}

// NewTail returns a Tail with the given caps.
func NewTail(maxBytes, maxLines int) *Tail {
	return &Tail{maxBytes: maxBytes, maxLines: maxLines}
}

// Write retains the end of p and counts all of it. It never fails.
func (t *Tail) Write(p []byte) (int, error) {
	_, _ = t.count.Write(p)
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) >= t.maxBytes {
		cut := len(p) - t.maxBytes
		switch {
		case cut > 0:
			t.prevNL, t.dropped = p[cut-1] == '\n', true
		case t.n > 0:
			t.prevNL, t.dropped = t.at(t.n-1) == '\n', true
		}
		t.grow(t.maxBytes)
		t.start, t.n = 0, copy(t.buf, p[cut:])
		return len(p), nil
	}
	if over := t.n + len(p) - t.maxBytes; over > 0 {
		t.prevNL, t.dropped = t.at(over-1) == '\n', true
		t.start = (t.start + over) % len(t.buf)
		t.n -= over
	}
	t.grow(t.n + len(p))
	written := len(p)
	for len(p) > 0 { // at most twice: up to the ring's end, then from its start
		end := (t.start + t.n) % len(t.buf)
		c := copy(t.buf[end:], p)
		t.n += c
		p = p[c:]
	}
	return written, nil
}

// at returns the i-th retained byte.
func (t *Tail) at(i int) byte { return t.buf[(t.start+i)%len(t.buf)] }

// grow makes the ring hold at least need bytes (need ≤ maxBytes), doubling
// up to maxBytes, and lays the retained bytes out from buf[0].
func (t *Tail) grow(need int) {
	if need <= len(t.buf) {
		return
	}
	size := min(max(need, 2*len(t.buf), 4096), t.maxBytes)
	nb := make([]byte, size)
	t.copyOut(nb)
	t.buf, t.start = nb, 0
}

// copyOut copies the retained bytes, in order, to dst.
func (t *Tail) copyOut(dst []byte) {
	if t.n == 0 {
		return
	}
	first := copy(dst[:t.n], t.buf[t.start:min(len(t.buf), t.start+t.n)])
	copy(dst[first:t.n], t.buf)
}

// Snapshot returns what was retained: at most maxBytes bytes and maxLines
// lines, starting at a line start unless only part of a single line fits.
// The text shares the ring's memory; later writes change it.
func (t *Tail) Snapshot() Snapshot {
	if t.start+t.n > len(t.buf) {
		// Wrapped: the ring is full; lay it out in place.
		slices.Reverse(t.buf[:t.start])
		slices.Reverse(t.buf[t.start:])
		slices.Reverse(t.buf)
		t.start = 0
	}
	text := t.buf[t.start : t.start+t.n]
	if t.dropped && !t.prevNL {
		// Skip the partial first line, unless nothing else is there.
		if nl := bytes.IndexByte(text, '\n'); nl >= 0 && nl+1 < len(text) {
			text = text[nl+1:]
		}
	}
	if cut.CountLines(text) > t.maxLines {
		text = text[lastLinesStart(text, t.maxLines):]
	}
	return snapshot(text, &t.count, t.count.LastLineBytes())
}

// lastLinesStart returns where the last n lines of b begin.
func lastLinesStart(b []byte, n int) int {
	e := len(b)
	if e > 0 && b[e-1] == '\n' {
		e--
	}
	for range n {
		nl := bytes.LastIndexByte(b[:e], '\n')
		if nl < 0 {
			return 0
		}
		e = nl
	}
	return e + 1
}
