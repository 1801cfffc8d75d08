package search

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pairPaths returns the values of bytePair.scan's asm to test: false (Go
// only), and true where pairBlock runs on this machine.
func pairPaths() []bool {
	if pairAsm {
		return []bool{false, true}
	}
	return []bool{false}
}

// addPairSeeds adds the fuzz seeds long enough for pairBlock to scan
// several blocks (64 + d bytes and more): candidates the confirm rejects in
// many lanes, a match in a later block, one at the very end.
func addPairSeeds(f *testing.F) {
	src := string(sourceText()[:300])
	f.Add([]byte(src+"PM_RESUME"), []byte("PM_RESUME"), uint8(6), uint8(7), uint16(0))
	f.Add([]byte(strings.Repeat("pm_", 40)+"Pm_ResumE xx"), []byte("pm_resume"), uint8(0), uint8(8), uint16(3))
	f.Add([]byte(strings.Repeat("_R____U_", 20)+"_RESUME"), []byte("_RESUME"), uint8(4), uint8(5), uint16(1))
	f.Add([]byte(src), []byte("PM_SUSPEND"), uint8(9), uint8(0), uint16(100))
}

// pairFuzzer returns the fuzz function of the pair search (folding case
// when fold): the search of lit at its bytes i and j (taken modulo its
// length, made distinct), from pos (at most len(buf)), in assembly (where
// there is) and in Go, finds what oracle finds.
func pairFuzzer(fold bool, oracle func(buf, lit []byte, pos int) int) func(t *testing.T, buf, lit []byte, i, j uint8, pos uint16) {
	return func(t *testing.T, buf, lit []byte, i, j uint8, pos uint16) {
		if len(lit) < 2 || len(lit) > 64 || len(buf) > 4096 {
			return
		}
		a, b := int(i)%len(lit), int(j)%len(lit)
		if a == b {
			b = (a + 1) % len(lit)
		}
		p, start := newBytePair(lit, a, b, fold), min(int(pos), len(buf))
		want := oracle(buf, lit, start)
		for _, asm := range pairPaths() {
			require.Equal(t, want, p.scan(buf, start, asm), "asm %v", asm)
		}
	}
}

// exactIndex is the oracle of bytePair.index not folding case.
func exactIndex(buf, lit []byte, pos int) int {
	if i := bytes.Index(buf[pos:], lit); i >= 0 {
		return pos + i
	}
	return -1
}

// FuzzExactPair: the exact pair search, in assembly (where there is) and in
// Go, finds the first occurrence bytes.Index finds.
func FuzzExactPair(f *testing.F) {
	f.Add([]byte("xx PM_RESUME pm_resume"), []byte("RESUME"), uint8(4), uint8(5), uint16(0))
	f.Add([]byte("\xff\xfe\xff\xff\xfe"), []byte("\xff\xfe"), uint8(1), uint8(0), uint16(1))
	addPairSeeds(f)
	f.Fuzz(pairFuzzer(false, exactIndex))
}

// TestPairLanes runs the pair search in Go and in assembly on the same
// texts, against the oracles: for texts of every length up to 150 and
// literals whose tested bytes stand 1 to 40 apart, the literal alone at
// every offset (so at each of the 32 lanes of a block, across block
// boundaries and at the very end of the text), and a candidate that is not
// the literal (both tested bytes, nothing else) at every offset before a
// match at the end, searched from several starts; and the literal cut by
// the end of the text.
func TestPairLanes(t *testing.T) {
	lits := []struct {
		lit  string
		a, b int
	}{
		{"PM", 0, 1},
		{"PM_RESUME", 6, 7},
		{"pm_resume", 0, 8},
		{"_RESUME", 0, 5},
		{"a" + strings.Repeat("-", 30) + "Bc", 0, 31},
		{"a" + strings.Repeat("-", 31) + "Bc", 0, 32},
		{"a" + strings.Repeat("-", 32) + "Bc", 33, 0},
		{"a" + strings.Repeat("=", 39) + "Z", 0, 40},
	}
	for _, fold := range []bool{false, true} {
		for _, l := range lits {
			lit := []byte(l.lit)
			p := newBytePair(lit, l.a, l.b, fold)
			placed := lit
			if fold {
				placed = bytes.ToUpper(lit)
			}
			for n := len(lit); n <= 150; n++ {
				for s := 0; s+len(lit) <= n; s++ {
					buf := bytes.Repeat([]byte{'.'}, n)
					copy(buf[s:], placed)
					checkPair(t, p, buf, fold, 0, s, s+1)
					// A candidate at s (not the literal), the match at
					// the end.
					buf = bytes.Repeat([]byte{'.'}, n)
					copy(buf[n-len(lit):], placed)
					buf[s+p.a], buf[s+p.b] = placed[p.a], placed[p.b]
					checkPair(t, p, buf, fold, 0, s, s+1)
				}
				// The literal straddles the end: all of it but its last
				// byte in buf, that byte just past it (in the backing
				// array, past the capacity too). Not found, and never a
				// candidate, which the confirm would slice past the end.
				backing := bytes.Repeat([]byte{'.'}, n+1)
				copy(backing[n+1-len(lit):], placed)
				checkPair(t, p, backing[:n:n], fold, 0)
			}
		}
	}
}

// checkPair fails unless both paths of p find what the oracle finds in buf
// from each of the starts.
func checkPair(t *testing.T, p *bytePair, buf []byte, fold bool, starts ...int) {
	t.Helper()
	for _, pos := range starts {
		want := exactIndex(buf, p.lit, pos)
		if fold {
			want = foldIndexNaive(buf, p.lit, pos)
		}
		for _, asm := range pairPaths() {
			if got := p.scan(buf, pos, asm); got != want {
				t.Fatalf("%q (bytes %d, %d; fold %v) in %q from %d (asm %v): %d, want %d", p.lit, p.a, p.b, fold, buf, pos, asm, got, want)
			}
		}
	}
}
