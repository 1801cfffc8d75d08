package contentindex

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/search"
	"github.com/toolrpc/toolrpc/limits"
)

// triSets recycles the sets termsOf fills: a new one costs 34 MiB.
var triSets = sync.Pool{New: func() any { return newTriSet() }}

// termsOf returns the membership test of the terms of text.
func termsOf(text []byte) func(uint64) bool {
	s := triSets.Get().(*triSet)
	defer triSets.Put(s)
	s.Reset()
	s.Add(text)
	tris := slices.Clone(s.Sorted())
	masks := make([]uint16, len(tris))
	for i, t := range tris {
		masks[i] = s.Mask(t)
	}
	o := &overlayDoc{tris: tris, masks: masks}
	return o.has
}

// matches reports whether grep's matcher finds a match in text.
func matches(m *search.Matcher, text []byte) bool {
	found := false
	m.MatchLines(text, func(int, int, int) bool { found = true; return false })
	return found
}

// checkSuperset fails when pattern matches text but text fails its query.
func checkSuperset(t *testing.T, pattern string, ci, ml bool, text []byte) {
	t.Helper()
	m, err := search.Compile(pattern, ci, ml)
	if err != nil {
		return
	}
	q, err := plan(pattern, ci, ml)
	require.NoError(t, err, "search compiles %q, so the planner must", pattern)
	if !matches(m, text) {
		return
	}
	ok := q.Eval(termsOf(text))
	require.True(t, ok, "pattern %q (i=%v s=%v) matches %q, but its query %s rejects it", pattern, ci, ml, text, q)
}

func TestPlanQueries(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		ci      bool
		want    string
	}{
		// Folded trigrams; "/u" asks the followers of the trigram's
		// occurrences with an upper-case letter, "/l" of those with none;
		// "+" the bit of the next byte, "^" that of the next three.
		{`PM_RESUME`, false, `"ume/u" "sum/u+0" "esu/u+5" "m_r/u+0^1" "pm_/u+7^1" "_re/u+6^3" "res/u+3^5"`},
		// One folded term per trigram, whatever the case (no OR of case
		// variants); the long s (U+017F) of s makes the one OR.
		{`pm_resume`, true, `"ume" (("?um+0" "ſu+5" "_re+6^2" "re?+1^4" "m_r+0^5" "eſ+3^5" "pm_+7^6")|("sum+0" "esu+5" "m_r+0^1" "pm_+7^1" "_re+6^3" "res+3^5"))`},
		{`[pP]M_R`, false, `"m_r/u" "pm_/u+7"`},
		{`[aA]bc`, false, `"abc/lu"`},
		{`abc`, false, `"abc/l"`},
		{`ab`, false, `+`},
		{`[0-9]{10}`, false, `+`},
		{`abc|xyz`, false, `"abc/l"|"xyz/l"`},
		{`\w+_RESUME`, false, `"ume/u" "sum/u+0" "esu/u+5" "_re/u+6^3" "res/u+3^5"`},
		// The folds of k: "kel" or the trigrams of U+212A "el"; the rest is common.
		{`(?i)kelvin`, false, "\"vin\" \"elv+4\" \"lvi+5\" (\"kel+4^6\"|(\"\u212a+0^2\" \"?e+0^6\" \"?el+4^6\"))"},
		// No three-byte follower holding a newline: the end of a text
		// stands for one, with no bytes after it.
		{`abc\ndef`, false, "\"def/l\" \"\nde/l+0\" \"abc/l+0\" \"c\nd/l+0\" \"bc\n/l+2^3\""},
		{`a\x{fffd}b`, false, `+`},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			q, err := plan(tc.pattern, tc.ci, false)
			require.NoError(t, err)
			if tc.want != "" {
				require.Equal(t, tc.want, q.String())
			} else {
				require.Equal(t, OpOr, q.Op, q.String())
			}
		})
	}
}

func TestPlanSupersetRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 5000
	if testing.Short() {
		n = 1000
	}
	for range n {
		p := genPattern(r, 3)
		text := genText(r, 8)
		checkSuperset(t, p, r.IntN(2) == 0, r.IntN(4) == 0, text)
	}
}

// FuzzPlanSuperset: every text grep's matcher matches satisfies the
// pattern's trigram query.
func FuzzPlanSuperset(f *testing.F) {
	f.Add(`PM_RESUME`, []byte("x pm_resume y"), true, false)
	f.Add(`(?i)k[e\x{212a}]lvin`, []byte("\u212aelvin"), false, false)
	f.Add(`a\x{fffd}b`, []byte("a\xffb"), false, false)
	f.Add(`a.b`, []byte("a\nb"), false, true)
	f.Add(`(?:ab|cd)+ef`, []byte("abcdef"), false, false)
	f.Add(`\bfoo$`, []byte("x foo\r\n"), true, false)
	f.Add(`pm_resume`, []byte("pm_restore x_resume pm_re\u017fume"), true, false)
	f.Add(`abc\ndef`, []byte("abc\ndef"), false, true)
	f.Add(`oo\n`, []byte("foo"), false, true)
	f.Add(`abcdef\n`, []byte("xabcdef"), true, true)
	f.Fuzz(func(t *testing.T, pattern string, text []byte, ci, ml bool) {
		if len(pattern) > 200 || len(text) > 4096 {
			return
		}
		checkSuperset(t, pattern, ci, ml, text)
	})
}

// TestPlanBoundsHugePatterns: a huge pattern (conformance sends 1 MB of
// alternations) plans to match-all at once, and a long literal to at most
// limits.IndexMaxQueryTerms terms (before the bounds: minutes, quadratic).
func TestPlanBoundsHugePatterns(t *testing.T) {
	q, err := plan(strings.Repeat("(a|b)", 200000)+"z", false, false)
	require.NoError(t, err)
	require.Equal(t, OpAll, q.Op)
	q, err = plan(strings.Repeat("abcdefgh", limits.IndexMaxPatternBytes/8), true, false)
	require.NoError(t, err)
	require.Equal(t, OpAnd, q.Op)
	require.LessOrEqual(t, len(q.Tri)+len(q.Sub), limits.IndexMaxQueryTerms)
	checkSuperset(t, strings.Repeat("abcdefgh", 100), false, false, []byte(strings.Repeat("abcdefgh", 100)))
}

// plan compiles pattern as grep does and plans from the matcher's tree, the
// way tools/grep narrows its files.
func plan(pattern string, caseInsensitive, multiline bool) (*Query, error) {
	m, err := search.Compile(pattern, caseInsensitive, multiline)
	if err != nil {
		return nil, err
	}
	return Plan(m.Syntax(), len(pattern)), nil
}
