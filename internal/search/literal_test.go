package search

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkLiteral fails unless grep's matcher, compiled from the literal lit
// (case-folded when ci), reports exactly the lines Go's regexp matches on
// each line alone, without running the regexp: the matcher's regexp and DFA
// are taken away, so using them panics.
func checkLiteral(t *testing.T, lit string, ci bool, buf []byte) {
	t.Helper()
	lit = strings.ToValidUTF8(lit, "\uFFFD")
	if lit == "" {
		return
	}
	pattern := regexp.QuoteMeta(lit)
	m, err := Compile(pattern, ci, false)
	require.NoError(t, err)
	require.NotNil(t, m.whole, "%q is one literal", pattern)
	m.re, m.dfa = nil, nil
	var got []int
	m.MatchLines(buf, func(n, s, e int) bool {
		got = append(got, n)
		return true
	})
	require.Equal(t, naive(t, pattern, ci, buf), got, "pattern %q (i=%v) on %q", pattern, ci, buf)
}

// foldTokens are what generated literals and texts are made of: the
// letters whose case partners are not ASCII (k K U+212A, s S U+017F), other
// folds, CRLF, bytes that are not UTF-8, U+FFFD.
var foldTokens = []string{
	"k", "K", "\u212a", "s", "S", "\u017f", "pm_", "PM_", "resume", "RESUME", "é", "É", "ß", "ẞ",
	"Σ", "σ", "ς", "\r\n", "\n", "\r", " ", "\xff", "\xe2\x84", "\xc5", "\uFFFD", "a", "B", "_", "1",
}

func genFold(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(foldTokens[r.IntN(len(foldTokens))])
	}
	return b.String()
}

func TestLiteralFastPathsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	rounds := map[bool]int{false: 20000, true: 2000}[testing.Short()]
	for range rounds {
		lit := genFold(r, 1+r.IntN(3))
		text := genFold(r, r.IntN(12))
		if r.IntN(2) == 0 { // put the literal in, in another case
			text += strings.ToUpper(lit) + genFold(r, r.IntN(3))
		}
		checkLiteral(t, lit, r.IntN(2) == 0, []byte(text))
	}
}

// FuzzLiteralFastPaths: for every literal and text, the regexp-free literal
// paths (exact bytes, ASCII fold, the whole-literal rune compare) agree with
// Go's regexp on each line.
func FuzzLiteralFastPaths(f *testing.F) {
	f.Add("pm_resume", true, []byte("x PM_RESUME\r\npm_reſume\nPM_RE\u017fUME y"))
	f.Add("k", true, []byte("\u212a\nK\nx"))
	f.Add("Kelvin", true, []byte("\u212aELVIN\r\n"))
	f.Add("\u212a", true, []byte("k\nK\n\u212a"))
	f.Add("s", true, []byte("\u017f\r\nS"))
	f.Add("sk", true, []byte("\u017f\u212a\nSK"))
	f.Add("a\uFFFDb", false, []byte("a\xffb\na\uFFFDb\n"))
	f.Add("\uFFFD", true, []byte("\xe2\x84\n\xff"))
	f.Add("é", true, []byte("É\n\xc3"))
	f.Add("foo\r", false, []byte("foo\r\nfoo\n"))
	f.Fuzz(func(t *testing.T, lit string, ci bool, buf []byte) {
		if len(lit) > 64 || len(buf) > 4096 {
			return
		}
		checkLiteral(t, lit, ci, buf)
	})
}
