package sourceset

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSetAddMerges(t *testing.T) {
	tests := []struct {
		name string
		adds []Span
		want []Span
	}{
		{"single", []Span{{3, 5}}, []Span{{3, 5}}},
		{"adjacent merge", []Span{{1, 2}, {3, 4}}, []Span{{1, 4}}},
		{"gap kept", []Span{{1, 2}, {4, 5}}, []Span{{1, 2}, {4, 5}}},
		{"fill gap", []Span{{1, 2}, {4, 5}, {3, 3}}, []Span{{1, 5}}},
		{"swallow several", []Span{{2, 2}, {4, 4}, {6, 6}, {1, 7}}, []Span{{1, 7}}},
		{"insert before", []Span{{10, 12}, {1, 2}}, []Span{{1, 2}, {10, 12}}},
		{"overlap right", []Span{{1, 5}, {4, 9}}, []Span{{1, 9}}},
		{"inside", []Span{{1, 9}, {3, 4}}, []Span{{1, 9}}},
		{"empty ignored", []Span{{5, 4}}, nil},
		{"below one clamped", []Span{{-3, 2}}, []Span{{1, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New()
			for _, a := range tc.adds {
				s.Add("/f", "abcd", a.From, a.To)
			}
			require.Equal(t, tc.want, s.Spans("/f", "abcd"))
			_, spans := s.Size()
			require.Equal(t, len(tc.want), spans)
		})
	}
}

func TestSetHasAndMissing(t *testing.T) {
	s := New()
	s.Add("/f", "abcd", 1, 3)
	s.Add("/f", "abcd", 6, 6)
	s.Add("/f", "ffff", 4, 5)
	tests := []struct {
		name      string
		tag       string
		from, to  int
		limit     int
		wantLines []int
		wantCount int
	}{
		{"all visible", "abcd", 1, 3, 10, nil, 0},
		{"gap", "abcd", 2, 7, 10, []int{4, 5, 7}, 3},
		{"listing capped", "abcd", 1, 20, 2, []int{4, 5}, 16},
		{"other tag", "ffff", 1, 5, 10, []int{1, 2, 3}, 3},
		{"unknown tag", "0000", 2, 3, 10, []int{2, 3}, 2},
		{"empty range", "abcd", 5, 4, 10, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines, count := s.Missing("/f", tc.tag, tc.from, tc.to, tc.limit)
			require.Equal(t, tc.wantLines, lines)
			require.Equal(t, tc.wantCount, count)
			all, _ := s.Missing("/f", tc.tag, tc.from, tc.to, 1<<20)
			for n := tc.from; n <= tc.to; n++ {
				require.Equal(t, !contains(all, n), s.Has("/f", tc.tag, n), "line %d", n)
			}
		})
	}
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// A session that reads a million lines, every other one clipped, must not
// hold a million ranges.
func TestSetMemoryBounded(t *testing.T) {
	s := New()
	for n := 1; n <= 1_000_000; n += 2 {
		s.Add("/big", "abcd", n, n)
	}
	versions, spans := s.Size()
	require.Equal(t, 1, versions)
	require.LessOrEqual(t, spans, maxSpans)
	require.True(t, s.Has("/big", "abcd", 999_999), "the latest addition survives")
	require.False(t, s.Has("/big", "abcd", 1), "the farthest range is forgotten")

	for i := range 3 * maxFiles {
		s.Add("/f"+strings.Repeat("x", i%7)+string(rune('a'+i%26)), TagOf([]byte{byte(i), byte(i >> 8)}), 1, 10)
	}
	versions, spans = s.Size()
	require.LessOrEqual(t, versions, maxFiles)
	require.LessOrEqual(t, spans, maxSpans)
}

func TestSetLRUKeepsRecentlyUsed(t *testing.T) {
	defer func(f int) { maxFiles = f }(maxFiles)
	maxFiles = 2
	s := New()
	s.Add("/a", "0001", 1, 1)
	s.Add("/b", "0002", 1, 1)
	require.True(t, s.Has("/a", "0001", 1)) // /a is now the most recent
	s.Add("/c", "0003", 1, 1)
	require.True(t, s.Has("/a", "0001", 1))
	require.False(t, s.Has("/b", "0002", 1))
	require.True(t, s.Has("/c", "0003", 1))
	s.Forget("/a", "0001")
	require.False(t, s.Has("/a", "0001", 1))
	versions, spans := s.Size()
	require.Equal(t, 1, versions)
	require.Equal(t, 1, spans)
}

func TestTag(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string
	}{
		// CRC-32C check value of "123456789" is e3069283.
		{"check value", "123456789", "e306"},
		{"empty", "", "0000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Tag(strings.NewReader(tc.content))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.want, TagOf([]byte(tc.content)))
		})
	}
}

// FuzzSetAdd compares the merged ranges with a plain set of line numbers.
func FuzzSetAdd(f *testing.F) {
	f.Add([]byte{1, 3, 5, 9, 4, 4})
	f.Add([]byte{10, 2, 0, 0, 200, 255})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := New()
		ref := map[int]bool{}
		for i := 0; i+1 < len(ops); i += 2 {
			from, to := int(ops[i]), int(ops[i])+int(ops[i+1]%8)
			if ops[i+1] >= 128 {
				to = from - 1
			}
			s.Add("/f", "abcd", from, to)
			for n := max(from, 1); n <= to; n++ {
				ref[n] = true
			}
		}
		spans := s.Spans("/f", "abcd")
		for i, sp := range spans {
			require.LessOrEqual(t, sp.From, sp.To)
			if i > 0 {
				require.Greater(t, sp.From, spans[i-1].To+1, "ranges are merged")
			}
		}
		for n := 0; n <= 270; n++ {
			require.Equal(t, ref[n], s.Has("/f", "abcd", n), "line %d", n)
		}
		lines, count := s.Missing("/f", "abcd", 1, 270, 1000)
		require.Len(t, lines, count)
		for _, n := range lines {
			require.False(t, ref[n])
		}
		require.Equal(t, 270-countTrue(ref, 270), count)
	})
}

func countTrue(m map[int]bool, upto int) int {
	c := 0
	for n, v := range m {
		if v && n >= 1 && n <= upto {
			c++
		}
	}
	return c
}
