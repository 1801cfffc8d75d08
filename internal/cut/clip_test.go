package cut

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
)

func TestClipLine(t *testing.T) {
	ascii := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name        string
		line        string
		wantText    string
		wantClipped bool
		wantLossy   bool
	}{
		{name: "empty", line: "", wantText: ""},
		{name: "short ascii", line: "hello", wantText: "hello"},
		{name: "exactly max chars", line: ascii(limits.MaxLineChars), wantText: ascii(limits.MaxLineChars)},
		{name: "one char over", line: ascii(limits.MaxLineChars + 1), wantText: ascii(limits.MaxLineChars), wantClipped: true},
		{
			name:     "max two-byte chars is not clipped",
			line:     strings.Repeat("é", limits.MaxLineChars),
			wantText: strings.Repeat("é", limits.MaxLineChars),
		},
		{
			name:        "two-byte chars one over",
			line:        strings.Repeat("é", limits.MaxLineChars+1),
			wantText:    strings.Repeat("é", limits.MaxLineChars),
			wantClipped: true,
		},
		{
			name:        "four-byte char at the clip point is kept whole",
			line:        ascii(limits.MaxLineChars-1) + "😀b",
			wantText:    ascii(limits.MaxLineChars-1) + "😀",
			wantClipped: true,
		},
		{
			name:        "four-byte char just past the clip point is dropped whole",
			line:        ascii(limits.MaxLineChars) + "😀",
			wantText:    ascii(limits.MaxLineChars),
			wantClipped: true,
		},
		{name: "invalid byte", line: "a\xffb", wantText: "a\uFFFDb", wantLossy: true},
		{name: "truncated sequence at end", line: "abc\xe2\x82", wantText: "abc\uFFFD\uFFFD", wantLossy: true},
		{name: "surrogate encoding", line: "\xed\xa0\x80", wantText: "\uFFFD\uFFFD\uFFFD", wantLossy: true},
		{name: "literal U+FFFD is not lossy", line: "a\uFFFDb", wantText: "a\uFFFDb"},
		{
			name:        "invalid byte past the clip point is not lossy",
			line:        ascii(limits.MaxLineChars) + "\xff",
			wantText:    ascii(limits.MaxLineChars),
			wantClipped: true,
		},
		{
			name:        "invalid bytes count one char each",
			line:        strings.Repeat("\xff", limits.MaxLineChars+2),
			wantText:    strings.Repeat("\uFFFD", limits.MaxLineChars),
			wantClipped: true,
			wantLossy:   true,
		},
		{
			name:        "long line after a non-ASCII start",
			line:        "é" + ascii(5*limits.MaxLineChars),
			wantText:    "é" + ascii(limits.MaxLineChars-1),
			wantClipped: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, clipped, lossy := ClipLine([]byte(tc.line))
			require.Equal(t, tc.wantText, text)
			require.Equal(t, tc.wantClipped, clipped)
			require.Equal(t, tc.wantLossy, lossy)
		})
	}
}

func TestClipLineHugeLine(t *testing.T) {
	line := bytes.Repeat([]byte("x"), 4_200_000)
	text, clipped, lossy := ClipLine(line)
	require.True(t, clipped)
	require.False(t, lossy)
	require.Equal(t, limits.MaxLineChars, utf8.RuneCountInString(text))
}

func TestRepair(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"valid", "héllo 😀", "héllo 😀"},
		{"one invalid byte", "a\x80b", "a\uFFFDb"},
		{"run of invalid bytes becomes one each", "\xff\xfe", "\uFFFD\uFFFD"},
		{"cut four-byte char", "\xf0\x9f\x98", "\uFFFD\uFFFD\uFFFD"},
		{"overlong", "\xc0\xaf", "\uFFFD\uFFFD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Repair([]byte(tc.in))
			require.Equal(t, tc.want, got)
			require.Equal(t, len(tc.want), repairedLen([]byte(tc.in)))
		})
	}
}

func TestPrefixSuffixWithin(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		n          int
		wantPrefix string
		wantSuffix string
	}{
		{"empty", "", 5, "", ""},
		{"whole fits", "abc", 5, "abc", "abc"},
		{"zero", "abc", 0, "", ""},
		{"negative", "abc", -1, "", ""},
		{"ascii", "abcdef", 4, "abcd", "cdef"},
		{"two-byte char at the cut", "aéb", 2, "a", "b"},
		{"two-byte char fits", "aéb", 3, "aé", "éb"},
		{"emoji at the cut", "a😀😀b", 3, "a", "b"},
		{"second emoji at the cut", "a😀😀b", 7, "a😀", "😀b"},
		{"emoji fits", "a😀😀b", 5, "a😀", "😀b"},
		{"char wider than n", "😀", 3, "", ""},
		{"invalid bytes split anywhere", "\xff\xfe\xfd", 2, "\xff\xfe", "\xfe\xfd"},
		{"stray continuation bytes split anywhere", "\x80\x80\x80\x80\x80", 2, "\x80\x80", "\x80\x80"},
		{"cut sequence counts as invalid bytes", "\xe2\x82a", 1, "\xe2", "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.in)
			require.Equal(t, tc.wantPrefix, string(b[:PrefixWithin(b, tc.n)]))
			require.Equal(t, tc.wantSuffix, string(b[SuffixWithin(b, tc.n):]))
		})
	}
}

func TestCompletePrefix(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"ascii", "abc", 3},
		{"complete emoji", "a😀", 5},
		{"one byte of emoji", "a\xf0", 1},
		{"three bytes of emoji", "a\xf0\x9f\x98", 1},
		{"two bytes of euro", "a\xe2\x82", 1},
		{"invalid lead is sent", "a\xff", 2},
		{"impossible continuation is sent", "a\xe0\x80", 3},
		{"stray continuation is sent", "a\x80", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, CompletePrefix([]byte(tc.in)))
		})
	}
}

// splitsNothing reports whether cutting b at i leaves every character whole:
// the two halves decode to exactly what b decodes to.
func splitsNothing(b []byte, i int) bool {
	return Repair(b[:i])+Repair(b[i:]) == Repair(b)
}

func FuzzPrefixSuffixWithin(f *testing.F) {
	f.Add([]byte("aé😀b"), 3)
	f.Add([]byte("\xf0\x9f\x98\x80\xff\x80"), 2)
	f.Add([]byte("\xe2\x82\xac\xe2\x82"), 4)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		n %= len(b) + 2
		p := PrefixWithin(b, n)
		require.LessOrEqual(t, p, max(n, 0))
		require.True(t, splitsNothing(b, p), "prefix %d splits a character", p)
		for j := p + 1; j <= min(n, len(b)); j++ {
			require.False(t, splitsNothing(b, j), "prefix %d is not the longest: %d", p, j)
		}
		s := SuffixWithin(b, n)
		require.LessOrEqual(t, len(b)-s, max(n, 0))
		require.True(t, splitsNothing(b, s), "suffix at %d splits a character", s)
		for j := s - 1; j >= max(len(b)-n, 0); j-- {
			require.False(t, splitsNothing(b, j), "suffix at %d is not the longest: %d", s, j)
		}
		if n >= utf8.UTFMax && len(b) > 0 {
			require.Positive(t, p)
			require.Less(t, s, len(b))
		}
	})
}

func FuzzCompletePrefix(f *testing.F) {
	f.Add([]byte("aé😀b\xf0\x9f"), []byte{3, 1, 2})
	f.Add([]byte("\xe2\x82\xac\xe2\x82\xff"), []byte{1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, b []byte, cuts []byte) {
		// Stream b in pieces, holding back what CompletePrefix holds back;
		// the chunks must each be valid UTF-8 after repair and decode, joined,
		// to exactly what b decodes to.
		var out strings.Builder
		var held []byte
		rest := b
		for _, c := range cuts {
			k := min(int(c), len(rest))
			held = append(held, rest[:k]...)
			rest = rest[k:]
			send := CompletePrefix(held)
			require.LessOrEqual(t, len(held)-send, utf8.UTFMax-1)
			out.WriteString(Repair(held[:send]))
			held = append([]byte(nil), held[send:]...)
		}
		held = append(held, rest...)
		out.WriteString(Repair(held))
		require.Equal(t, Repair(b), out.String())
	})
}

func FuzzClipLine(f *testing.F) {
	f.Add([]byte("hello"), uint8(3))
	f.Add([]byte("aé😀\xffb"), uint8(2))
	f.Add([]byte("\xe2\x82\xac\xe2\x82"), uint8(1))
	f.Add(bytes.Repeat([]byte("é"), 40), uint8(17))
	f.Add([]byte("\x80\x80\x80\x80\x80\x80\x80\x80\x80abcdefghijklmnop"), uint8(9))
	f.Add([]byte("汉汉汉汉汉汉汉汉汉汉汉汉\xff"), uint8(10))
	f.Fuzz(func(t *testing.T, line []byte, n uint8) {
		maxChars := int(n % 32)
		text, clipped, lossy := clipLine(line, maxChars)
		require.True(t, utf8.ValidString(text))
		full := Repair(line)
		units := utf8.RuneCountInString(full) // each invalid byte is one unit
		require.Equal(t, min(maxChars, units), utf8.RuneCountInString(text))
		require.True(t, strings.HasPrefix(full, text))
		require.Equal(t, units > maxChars, clipped)
		k := rawLen(line, repairBytes(line), len(text))
		require.Equal(t, !utf8.Valid(line[:k]), lossy)

		// The counting fast path agrees with decoding.
		slowText, slowClipped, slowLossy := clipDecoding(line, maxChars)
		require.Equal(t, slowText, text)
		require.Equal(t, slowClipped, clipped)
		require.Equal(t, slowLossy, lossy)

		// The exported limit behaves as the general one.
		text2, clipped2, lossy2 := ClipLine(line)
		want, wantClipped, wantLossy := clipLine(line, limits.MaxLineChars)
		require.Equal(t, want, text2)
		require.Equal(t, wantClipped, clipped2)
		require.Equal(t, wantLossy, lossy2)
	})
}

func BenchmarkClipLine(b *testing.B) {
	cases := []struct {
		name string
		line []byte
	}{
		{"short-ascii", []byte("\tif err := f.Close(); err != nil { return fmt.Errorf(\"close %s: %w\", p, err) }")},
		{"long-4.2MB", bytes.Repeat([]byte("0123456789"), 420_000)},
		{"long-4.2MB-cjk", bytes.Repeat([]byte("汉"), 1_400_000)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ClipLine(tc.line)
			}
		})
	}
}
