package search

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// foldIndexNaive is the oracle of foldPair.index: every position in order.
func foldIndexNaive(buf, lit []byte, pos int) int {
	for s := pos; s+len(lit) <= len(buf); s++ {
		if foldEqual(buf[s:s+len(lit)], lit) {
			return s
		}
	}
	return -1
}

func TestFoldPair(t *testing.T) {
	for _, tc := range []struct {
		text, lit string
		i, j, pos int
	}{
		{"xx pm_resume PM_RESUME", "pm_re", 0, 2, 0},
		{"xx pm_resume PM_RESUME", "pm_re", 0, 2, 4},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaB_1", "b_1", 1, 0, 0},
		{"@[`{ AZaz", "`{", 0, 1, 0}, // '@'|0x20 is '`': not a letter, compared exactly
		{"0123456789abcdefXY", "xy", 1, 0, 3},
		{"\xc3\xa9\xc3\x89", "\xc3\x89", 0, 1, 0},
		{"short", "longer than the text", 0, 3, 0},
		{"xxxxxxxab", "ab", 0, 1, 1}, // the last block ends at the text's end
		// A candidate rejected in the first word of a 32-byte step, the
		// match in its fourth word.
		{"xxxxxxxxxxpx_rexxxxxxxxxxxxxxxxPm_Rexxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "pm_re", 0, 2, 0},
	} {
		p := newFoldPair([]byte(tc.lit), tc.i, tc.j)
		want := foldIndexNaive([]byte(tc.text), []byte(tc.lit), tc.pos)
		require.Equal(t, want, p.index([]byte(tc.text), tc.pos), "%q in %q from %d", tc.lit, tc.text, tc.pos)
	}
}

// FuzzFoldPair: the eight-lane pair search finds the first folded
// occurrence the bytewise search finds, for any two tested bytes.
func FuzzFoldPair(f *testing.F) {
	f.Add([]byte("PM_RESUME pm_resume\r\n\xffPm_ReSuMe"), []byte("pm_re"), uint8(0), uint8(4), uint16(1))
	f.Add([]byte("@@@@@@@@@@@@@@@@````````[[[[{{{{"), []byte("`{"), uint8(1), uint8(0), uint16(0))
	f.Add([]byte("\u212a\u017fKS ks"), []byte("ks"), uint8(0), uint8(1), uint16(0))
	f.Fuzz(func(t *testing.T, buf, lit []byte, i, j uint8, pos uint16) {
		if len(lit) < 2 || len(lit) > 64 || len(buf) > 4096 {
			return
		}
		a, b := int(i)%len(lit), int(j)%len(lit)
		if a == b {
			b = (a + 1) % len(lit)
		}
		p := min(int(pos), len(buf))
		require.Equal(t, foldIndexNaive(buf, lit, p), newFoldPair(lit, a, b).index(buf, p))
	})
}

// BenchmarkFoldPair scans source-like text (identifiers in both cases,
// few candidates) for a folded literal that is not there.
func BenchmarkFoldPair(b *testing.B) {
	words := []string{"static ", "int ", "return ", "struct device *dev", "PM_SUSPEND", "pm_runtime_get", "(void)", ";\n", "\t", "if (err)", "Resume", "EXPORT_SYMBOL_GPL"}
	var text []byte
	for i := 0; len(text) < 1<<20; i++ {
		text = append(text, words[(i*7+i/3)%len(words)]...)
	}
	lit := []byte("pm_resume")
	p := newFoldPair(lit, 0, 8)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if p.index(text, 0) >= 0 {
			b.Fatal("found")
		}
	}
}
