package lineedit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/sourceset"
)

type testOp = map[string]any

// applyRef applies hunks the slow, obvious way: split, splice, join.
func applyRef(old string, hunks []Hunk) string {
	type line struct{ text, end string }
	var ls []line
	crlf, lf := 0, 0
	for rest := old; rest != ""; {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			ls = append(ls, line{rest, ""})
			break
		}
		l := line{rest[:i], "\n"}
		if strings.HasSuffix(l.text, "\r") {
			l = line{l.text[:len(l.text)-1], "\r\n"}
			crlf++
		} else {
			lf++
		}
		ls = append(ls, l)
		rest = rest[i+1:]
	}
	nl := "\n"
	if crlf > lf {
		nl = "\r\n"
	}
	final := old == "" || strings.HasSuffix(old, "\n")
	for k := len(hunks) - 1; k >= 0; k-- {
		h := hunks[k]
		var add []line
		for _, t := range h.lines {
			add = append(add, line{t, nl})
		}
		tail := append([]line(nil), ls[h.oldStart-1+h.oldCount:]...)
		ls = append(append(ls[:h.oldStart-1], add...), tail...)
	}
	var b strings.Builder
	for i, l := range ls {
		b.WriteString(l.text)
		if i < len(ls)-1 || final {
			e := l.end
			if e == "" {
				e = nl
			}
			b.WriteString(e)
		}
	}
	return b.String()
}

// FuzzApply checks the streaming edit against applyRef, with buffers
// small enough to split lines and CRLF pairs across reads.
func FuzzApply(f *testing.F) {
	f.Add("a\nb\r\nc", []byte{1, 1, 0, 2, 2, 2}, uint8(16))
	f.Add("", []byte{2, 0, 3}, uint8(16))
	f.Add("x\r\n\r\n\ry\n", []byte{0, 2, 1, 1, 3, 0}, uint8(17))
	f.Add(strings.Repeat("long line ", 10)+"\r\nend", []byte{0, 1, 0}, uint8(16))
	f.Fuzz(func(t *testing.T, content string, ops []byte, buf uint8) {
		if len(content) > 4096 {
			return // long inputs only slow the search; lines longer than the buffer are covered
		}
		defer func(b int) { bufBytes = b }(bufBytes)
		bufBytes = 16 + int(buf%32)
		st, err := Scan(context.Background(), strings.NewReader(content))
		require.NoError(t, err)
		// Build a valid, non-overlapping op list from the bytes.
		var raw []testOp
		next := 0 // lines below next are taken
		for i := 0; i+2 < len(ops) && len(raw) < 10; i += 3 {
			start := next + int(ops[i+1]%3)
			switch ops[i] % 3 {
			case 0: // replace
				end := start + int(ops[i+2]%3)
				if start < 1 || end > st.lines {
					continue
				}
				raw = append(raw, testOp{"op": "replace", "start": start, "end": end, "lines": []string{"r", "s"}[:ops[i]/3%3]})
				next = end + 1
			case 1: // delete
				if start < 1 || start > st.lines {
					continue
				}
				raw = append(raw, testOp{"op": "delete", "start": start})
				next = start + 1
			case 2: // insert
				if start > st.lines {
					continue
				}
				raw = append(raw, testOp{"op": "insert", "start": start, "lines": []string{"i", "j"}[:1+int(ops[i+2]%2)]})
				next = start + 1
			}
		}
		if len(raw) == 0 {
			return
		}
		b, err := json.Marshal(raw)
		require.NoError(t, err)
		hunks, err := ParseOps(b)
		require.NoError(t, err)
		var out strings.Builder
		newTotal := st.lines
		for _, h := range hunks {
			newTotal += len(h.lines) - h.oldCount
		}
		v := &view{show: showRanges(hunks, newTotal)}
		ap, err := apply(context.Background(), strings.NewReader(content), &out, st, hunks, v, nil)
		require.NoError(t, err)
		want := applyRef(content, hunks)
		require.Equal(t, want, out.String())
		require.Equal(t, st.sum, ap.readSum)
		require.Equal(t, sourceset.TagOf([]byte(want)), sourceset.TagSum(ap.newSum))
		wst, err := Scan(context.Background(), strings.NewReader(want))
		require.NoError(t, err)
		require.Equal(t, wst.lines, ap.newLines)
		// An empty last line without an ending vanishes (SPEC §2 line count).
		require.Contains(t, []int{newTotal, newTotal - 1}, ap.newLines)
	})
}

func TestShift(t *testing.T) {
	tests := []struct {
		name  string
		spans []sourceset.Span
		ops   []testOp
		want  []sourceset.Span
	}{
		{"insert moves later lines", []sourceset.Span{{From: 1, To: 5}},
			[]testOp{{"op": "insert", "start": 2, "lines": []string{"x", "y"}}},
			[]sourceset.Span{{From: 1, To: 2}, {From: 5, To: 7}}},
		{"replace drops its lines", []sourceset.Span{{From: 1, To: 3}, {From: 8, To: 9}},
			[]testOp{{"op": "replace", "start": 2, "end": 4, "lines": []string{"x"}}},
			[]sourceset.Span{{From: 1, To: 1}, {From: 6, To: 7}}},
		{"delete and insert at 0", []sourceset.Span{{From: 1, To: 4}},
			[]testOp{{"op": "insert", "start": 0, "lines": []string{"x"}}, {"op": "delete", "start": 3}},
			[]sourceset.Span{{From: 2, To: 3}, {From: 4, To: 4}}},
		{"unseen lines stay unseen", []sourceset.Span{{From: 10, To: 10}},
			[]testOp{{"op": "delete", "start": 1, "end": 2}},
			[]sourceset.Span{{From: 8, To: 8}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.ops)
			require.NoError(t, err)
			hunks, err := ParseOps(raw)
			require.NoError(t, err)
			require.Equal(t, tc.want, Shift(tc.spans, hunks))
		})
	}
}
