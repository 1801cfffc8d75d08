package search

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/sourceset"
)

// findRunBytewise is findRun testing every byte in order: the oracle of
// findRun's skips.
func findRunBytewise(set *[256]bool, want int, buf []byte, pos int) int {
	n := 0
	for i := pos; i < len(buf); i++ {
		if set[buf[i]] {
			n++
			if n == want {
				return i - want + 1
			}
		} else {
			n = 0
		}
	}
	return -1
}

func TestFindRun(t *testing.T) {
	m, err := Compile(`[A-Za-z]{5}`, false, false)
	require.NoError(t, err)
	require.Equal(t, 5, m.runLen)
	for _, tc := range []struct {
		buf  string
		pos  int
		want int
	}{
		{"abcd efghi", 0, 5},
		{"abcdefghi", 2, 2},
		{"ab1cdefg", 0, 3},
		{"abcd", 0, -1},
		{"a_b_c_d_efgh_ijklm", 0, 13},
		{"", 0, -1},
		{"abcdefghij", 6, -1},
		{"ab1cd!fgh", 0, -1}, // the byte past a window is tested, not assumed
	} {
		require.Equal(t, tc.want, m.findRun([]byte(tc.buf), tc.pos), "%q from %d", tc.buf, tc.pos)
	}
}

// FuzzFindRun: the skipping class-run search finds the run the bytewise one
// finds, and the matcher built on it reports the lines regexp reports, on
// any bytes (invalid UTF-8, CRLF, K/U+212A and S/U+017F under (?i)).
func FuzzFindRun(f *testing.F) {
	f.Add(byte('A'), byte('z'), uint8(30), false, []byte("short words only\n"+string(make([]byte, 40))), uint16(0))
	f.Add(byte('a'), byte('z'), uint8(3), true, []byte("ab\u212Ac\nabc\r\nx\u017Fyz\xff\xfeabcd"), uint16(1))
	f.Add(byte('0'), byte('9'), uint8(10), false, []byte("12345 1234567890\r\n123456789"), uint16(3))
	f.Add(byte(0), byte(0x7f), uint8(4), false, []byte("a\nbcdef\n\n"), uint16(0))
	f.Fuzz(func(t *testing.T, lo, hi byte, n uint8, ci bool, buf []byte, pos uint16) {
		if lo > hi || hi >= 0x80 || n < 2 || n > 64 || len(buf) > 4096 {
			return
		}
		pattern := fmt.Sprintf(`[\x{%x}-\x{%x}]{%d}`, lo, hi, n)
		if _, err := regexp.Compile(pattern); err != nil {
			return
		}
		m, err := Compile(pattern, ci, false)
		require.NoError(t, err)
		if m.run != nil {
			p := min(int(pos), len(buf))
			require.Equal(t, findRunBytewise(m.run, m.runLen, buf, p), m.findRun(buf, p))
		}
		require.Equal(t, naive(t, pattern, ci, buf), matched(t, pattern, ci, false, buf))
	})
}

// grepIn runs q searching start below boundary.
func grepIn(q *Query, start, boundary string, display func(string) string, sources *sourceset.Set) (Result, error) {
	q.Start, q.Boundary, q.Display, q.Sources = start, boundary, display, sources
	return Grep(context.Background(), q)
}
