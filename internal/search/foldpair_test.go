package search

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// foldIndexNaive is the oracle of bytePair.index folding case: every
// position in order.
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
		p := newBytePair([]byte(tc.lit), tc.i, tc.j, true)
		want := foldIndexNaive([]byte(tc.text), []byte(tc.lit), tc.pos)
		for _, asm := range pairPaths() {
			require.Equal(t, want, p.scan([]byte(tc.text), tc.pos, asm), "%q in %q from %d (asm %v)", tc.lit, tc.text, tc.pos, asm)
		}
	}
}

// FuzzFoldPair: the pair search, in assembly (where there is) and in Go,
// finds the first folded occurrence the bytewise search finds, for any two
// tested bytes.
func FuzzFoldPair(f *testing.F) {
	f.Add([]byte("PM_RESUME pm_resume\r\n\xffPm_ReSuMe"), []byte("pm_re"), uint8(0), uint8(4), uint16(1))
	f.Add([]byte("@@@@@@@@@@@@@@@@````````[[[[{{{{"), []byte("`{"), uint8(1), uint8(0), uint16(0))
	f.Add([]byte("\u212a\u017fKS ks"), []byte("ks"), uint8(0), uint8(1), uint16(0))
	addPairSeeds(f)
	f.Fuzz(pairFuzzer(true, foldIndexNaive))
}

// BenchmarkFoldPair scans source-like text (identifiers in both cases,
// few candidates) for a folded literal that is not there.
func BenchmarkFoldPair(b *testing.B) {
	text := sourceText()
	lit := []byte("pm_resume")
	p := newBytePair(lit, 0, 8, true)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if p.index(text, 0) >= 0 {
			b.Fatal("found")
		}
	}
}
