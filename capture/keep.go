package capture

import (
	"bytes"

	"github.com/toolrpc/toolrpc/limits"
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

func snapshot(text []byte, c *limits.LineCounter, edge int) Snapshot {
	lines := limits.CountLines(text)
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
	count              limits.LineCounter
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
// counts the rest. It holds at most 2*maxBytes bytes. It is not safe for
// concurrent use.
type Tail struct {
	maxBytes, maxLines int
	buf                []byte
	dropped            bool // bytes before buf were dropped
	prevNL             bool // the last dropped byte was "\n"
	count              limits.LineCounter
}

// NewTail returns a Tail with the given caps.
func NewTail(maxBytes, maxLines int) *Tail {
	return &Tail{maxBytes: maxBytes, maxLines: maxLines}
}

// Write retains the end of p and counts all of it. It never fails.
func (t *Tail) Write(p []byte) (int, error) {
	_, _ = t.count.Write(p)
	if len(p) >= t.maxBytes {
		t.drop(len(t.buf))
		cut := len(p) - t.maxBytes
		if cut > 0 {
			t.prevNL = p[cut-1] == '\n'
			t.dropped = true
		}
		t.buf = append(t.buf, p[cut:]...)
		return len(p), nil
	}
	if len(t.buf)+len(p) > 2*t.maxBytes {
		t.drop(len(t.buf) + len(p) - t.maxBytes)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// drop discards the first n bytes of buf (n ≤ len(buf)).
func (t *Tail) drop(n int) {
	if n <= 0 {
		return
	}
	t.prevNL = t.buf[n-1] == '\n'
	t.dropped = true
	t.buf = t.buf[:copy(t.buf, t.buf[n:])]
}

// Snapshot returns what was retained: at most maxBytes bytes and maxLines
// lines, starting at a line start unless only part of a single line fits.
func (t *Tail) Snapshot() Snapshot {
	start := max(len(t.buf)-t.maxBytes, 0)
	atLineStart := !t.dropped || t.prevNL
	if start > 0 {
		atLineStart = t.buf[start-1] == '\n'
	}
	text := t.buf[start:]
	if !atLineStart {
		// Skip the partial first line, unless nothing else is there.
		if nl := bytes.IndexByte(text, '\n'); nl >= 0 && nl+1 < len(text) {
			text = text[nl+1:]
		}
	}
	if limits.CountLines(text) > t.maxLines {
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
