package capture

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/limits"
)

// writeIn writes b to w in pieces of size n.
func writeIn(w interface{ Write([]byte) (int, error) }, b []byte, n int) {
	for len(b) > 0 {
		k := min(n, len(b))
		_, _ = w.Write(b[:k])
		b = b[k:]
	}
}

func TestHead(t *testing.T) {
	tests := []struct {
		name     string
		maxBytes int
		maxLines int
		in       string
		want     Snapshot
	}{
		{"empty", 10, 3, "", Snapshot{Text: nil}},
		{"fits", 10, 3, "a\nb\n", Snapshot{Text: []byte("a\nb\n"), Bytes: 4, Lines: 2, EdgeLineBytes: 1}},
		{"exactly the byte cap", 4, 3, "a\nb\n", Snapshot{Text: []byte("a\nb\n"), Bytes: 4, Lines: 2, EdgeLineBytes: 1}},
		{"byte cap cuts a line", 5, 9, "aa\nbb\ncc\n", Snapshot{Text: []byte("aa\n"), Bytes: 9, Lines: 3, OmittedBytes: 6, OmittedLines: 2, EdgeLineBytes: 2}},
		{"line cap", 100, 2, "a\nb\nc\nd", Snapshot{Text: []byte("a\nb\n"), Bytes: 7, Lines: 4, OmittedBytes: 3, OmittedLines: 2, EdgeLineBytes: 1}},
		{"single long line", 4, 9, "abcdefgh\nx\n", Snapshot{Text: []byte("abcd"), Bytes: 11, Lines: 2, OmittedBytes: 7, OmittedLines: 1, EdgeLineBytes: 8}},
		{"crlf edge", 100, 9, "ab\r\ncd", Snapshot{Text: []byte("ab\r\ncd"), Bytes: 6, Lines: 2, EdgeLineBytes: 2}},
	}
	for _, tc := range tests {
		for _, piece := range []int{1, 3, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, piece), func(t *testing.T) {
				h := NewHead(tc.maxBytes, tc.maxLines)
				writeIn(h, []byte(tc.in), piece)
				got := h.Snapshot()
				if len(got.Text) == 0 {
					got.Text = nil
				}
				require.Equal(t, tc.want, got)
			})
		}
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		name     string
		maxBytes int
		maxLines int
		in       string
		want     Snapshot
	}{
		{"empty", 10, 3, "", Snapshot{}},
		{"fits", 10, 3, "a\nb\n", Snapshot{Text: []byte("a\nb\n"), Bytes: 4, Lines: 2, EdgeLineBytes: 1}},
		{"byte cap cuts a line", 5, 9, "aa\nbb\ncc\n", Snapshot{Text: []byte("cc\n"), Bytes: 9, Lines: 3, OmittedBytes: 6, OmittedLines: 2, EdgeLineBytes: 2}},
		{"byte cap at a line start", 6, 9, "aa\nbb\ncc\n", Snapshot{Text: []byte("bb\ncc\n"), Bytes: 9, Lines: 3, OmittedBytes: 3, OmittedLines: 1, EdgeLineBytes: 2}},
		{"line cap", 100, 2, "a\nb\nc\nd", Snapshot{Text: []byte("c\nd"), Bytes: 7, Lines: 4, OmittedBytes: 4, OmittedLines: 2, EdgeLineBytes: 1}},
		{"single long line", 4, 9, "x\nabcdefgh\n", Snapshot{Text: []byte("fgh\n"), Bytes: 11, Lines: 2, OmittedBytes: 7, OmittedLines: 1, EdgeLineBytes: 8}},
	}
	for _, tc := range tests {
		for _, piece := range []int{1, 3, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, piece), func(t *testing.T) {
				tl := NewTail(tc.maxBytes, tc.maxLines)
				writeIn(tl, []byte(tc.in), piece)
				got := tl.Snapshot()
				if len(got.Text) == 0 {
					got.Text = nil
				}
				if len(tc.want.Text) == 0 {
					tc.want.Text = nil
				}
				require.Equal(t, tc.want, got)
			})
		}
	}
}

// TestCaptureAtLimits covers the real caps: 300,000 lines keep 200,000 at most
// and 512 KB at most, and count the rest exactly.
func TestCaptureAtLimits(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 300000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	in := []byte(b.String())
	h := NewHead(limits.CaptureMaxBytes, limits.CaptureMaxLines)
	writeIn(h, in, 65536)
	hs := h.Snapshot()
	require.Equal(t, len(in), hs.Bytes)
	require.Equal(t, 300000, hs.Lines)
	require.LessOrEqual(t, len(hs.Text), limits.CaptureMaxBytes)
	require.True(t, bytes.HasPrefix(in, hs.Text))
	require.Equal(t, len(in)-len(hs.Text), hs.OmittedBytes)
	require.Equal(t, 300000-cut.CountLines(hs.Text), hs.OmittedLines)

	tl := NewTail(limits.CaptureMaxBytes, limits.CaptureMaxLines)
	writeIn(tl, in, 65536)
	ts := tl.Snapshot()
	require.LessOrEqual(t, len(ts.Text), limits.CaptureMaxBytes)
	require.True(t, bytes.HasSuffix(in, ts.Text))
	require.Equal(t, byte('\n'), in[len(in)-len(ts.Text)-1])
	require.Equal(t, 300000-cut.CountLines(ts.Text), ts.OmittedLines)
}

func checkKeep(t *testing.T, in []byte, s Snapshot, maxBytes, maxLines int, head bool) {
	if s.Bytes != len(in) || s.Lines != cut.CountLines(in) {
		t.Fatalf("counted %d bytes %d lines, want %d %d", s.Bytes, s.Lines, len(in), cut.CountLines(in))
	}
	if len(s.Text) > maxBytes || cut.CountLines(s.Text) > maxLines {
		t.Fatalf("retained %d bytes %d lines over caps %d %d", len(s.Text), cut.CountLines(s.Text), maxBytes, maxLines)
	}
	if s.OmittedBytes != len(in)-len(s.Text) || s.OmittedLines != s.Lines-cut.CountLines(s.Text) {
		t.Fatalf("omitted %d/%d", s.OmittedBytes, s.OmittedLines)
	}
	if head && !bytes.HasPrefix(in, s.Text) || !head && !bytes.HasSuffix(in, s.Text) {
		t.Fatalf("retained %q is not an edge of %q", s.Text, in)
	}
	if len(in) > 0 && len(s.Text) == 0 {
		t.Fatalf("nothing retained of %q", in)
	}
}

func FuzzHead(f *testing.F) {
	f.Add([]byte("aa\nbb\ncc\n"), uint8(5), uint8(2), uint8(1))
	f.Add([]byte("abcdefgh\nx"), uint8(4), uint8(9), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, mb, ml, piece uint8) {
		maxBytes, maxLines := int(mb%64)+1, int(ml%8)+1
		h := NewHead(maxBytes, maxLines)
		writeIn(h, in, int(piece%16)+1)
		checkKeep(t, in, h.Snapshot(), maxBytes, maxLines, true)
	})
}

func FuzzTail(f *testing.F) {
	f.Add([]byte("aa\nbb\ncc\n"), uint8(5), uint8(2), uint8(1))
	f.Add([]byte("x\nabcdefgh\n"), uint8(4), uint8(9), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, mb, ml, piece uint8) {
		maxBytes, maxLines := int(mb%64)+1, int(ml%8)+1
		tl := NewTail(maxBytes, maxLines)
		writeIn(tl, in, int(piece%16)+1)
		checkKeep(t, in, tl.Snapshot(), maxBytes, maxLines, false)
	})
}

func BenchmarkHeadPastCap(b *testing.B) {
	p := bytes.Repeat([]byte(strings.Repeat("a", 99)+"\n"), 2600) // 260 KB
	b.SetBytes(int64(len(p)))
	h := NewHead(limits.CaptureMaxBytes, limits.CaptureMaxLines)
	for b.Loop() {
		_, _ = h.Write(p)
	}
}

func BenchmarkTail(b *testing.B) {
	p := bytes.Repeat([]byte(strings.Repeat("a", 99)+"\n"), 2600)
	b.SetBytes(int64(len(p)))
	tl := NewTail(limits.CaptureMaxBytes, limits.CaptureMaxLines)
	for b.Loop() {
		_, _ = tl.Write(p)
	}
}

// refTail is the Tail before it became a ring (it held up to 2*maxBytes),
// kept as the oracle of FuzzTailMatchesReference.
// It retains the last maxBytes bytes and maxLines lines of a stream and
// counts the rest. It holds at most 2*maxBytes bytes. It is not safe for
// concurrent use.
type refTail struct {
	maxBytes, maxLines int
	buf                []byte
	dropped            bool // bytes before buf were dropped
	prevNL             bool // the last dropped byte was "\n"
	count              cut.LineCounter
}

// newRefTail returns a Tail with the given caps.
func newRefTail(maxBytes, maxLines int) *refTail {
	return &refTail{maxBytes: maxBytes, maxLines: maxLines}
}

// Write retains the end of p and counts all of it. It never fails.
func (t *refTail) Write(p []byte) (int, error) {
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
func (t *refTail) drop(n int) {
	if n <= 0 {
		return
	}
	t.prevNL = t.buf[n-1] == '\n'
	t.dropped = true
	t.buf = t.buf[:copy(t.buf, t.buf[n:])]
}

// Snapshot returns what was retained: at most maxBytes bytes and maxLines
// lines, starting at a line start unless only part of a single line fits.
func (t *refTail) Snapshot() Snapshot {
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
	if cut.CountLines(text) > t.maxLines {
		text = text[lastLinesStart(text, t.maxLines):]
	}
	return snapshot(text, &t.count, t.count.LastLineBytes())
}

// FuzzTailMatchesReference: the ring keeps exactly what the former Tail
// kept, for any input, caps and write sizes.
func FuzzTailMatchesReference(f *testing.F) {
	f.Add([]byte("aa\nbb\ncc\n"), uint8(5), uint8(2), uint8(1), uint8(3))
	f.Add([]byte("x\nabcdefgh\n"), uint8(4), uint8(9), uint8(3), uint8(20))
	f.Add(bytes.Repeat([]byte("line\n"), 40), uint8(17), uint8(30), uint8(7), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, mb, ml, piece, piece2 uint8) {
		maxBytes, maxLines := int(mb%64)+1, int(ml%8)+1
		got, want := NewTail(maxBytes, maxLines), newRefTail(maxBytes, maxLines)
		// Vary the write sizes: alternate two piece lengths.
		for i, k := 0, 0; i < len(in); k++ {
			n := int(piece%16) + 1
			if k%2 == 1 {
				n = int(piece2%70) + 1
			}
			n = min(n, len(in)-i)
			_, _ = got.Write(in[i : i+n])
			_, _ = want.Write(in[i : i+n])
			i += n
		}
		gs, ws := got.Snapshot(), want.Snapshot()
		require.Equal(t, string(ws.Text), string(gs.Text))
		gs.Text, ws.Text = nil, nil
		require.Equal(t, ws, gs)
		require.LessOrEqual(t, len(got.buf), maxBytes)
	})
}
