package search

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// dfaOf compiles pattern as Compile does and returns its line DFA.
func dfaOf(t testing.TB, pattern string, ci bool) (*lineDFA, *regexp.Regexp) {
	t.Helper()
	m, err := Compile(pattern, ci, false)
	require.NoError(t, err)
	return m.dfa, m.re
}

func TestLineDFA(t *testing.T) {
	lines := []string{"", "x", "foo", "FOO bar", "ABC_DEF = 2", "ab_C = ", "1234567890", "a1234567890b",
		"kelvin", "KELVIN", "s", "end", "  ", "aXb", "\r", "x\r",
		"foo_bar foo", "(foo)", "xfoo foox", "foo", "sched_rt_entity;", "_", "a b"}
	tests := []struct {
		pattern string
		ci      bool
	}{
		{"[A-Z]{3,}_[A-Z]+ = ", false},
		{"[0-9]{10}", false},
		{"^foo", false},
		{"bar$", false},
		{"^$", false},
		{"^", false},
		{"$", false},
		{`\Afoo`, false},
		{`end\z`, false},
		{"x*", false},
		{"kelvin", true},
		{"(?i)s$", false},
		{"a|b|^e", false},
		{".", false},
		{`\r$`, false},
		{"[^a-z]+", true},
		{"a.b", false},
		{"$^", false},
		{`(?:^|x)\r`, false},
		{`\bfoo\b`, false},
		{`\bfoo`, true},
		{`foo\b`, false},
		{`\Bo\B`, false},
		{`\b`, false},
		{`\B`, false},
		{`^\b`, false},
		{`\b$`, false},
		{`\bsched_[a-z]+_entity\b`, false},
		{`\b[A-Z]+_[A-Z]+\b`, false},
		{`(?:\b|x)_`, false},
		{`\b\B`, false},
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			d, re := dfaOf(t, tc.pattern, tc.ci)
			require.NotNil(t, d)
			for _, l := range lines {
				want := re.Match([]byte(l))
				got, ok := d.match([]byte(l))
				require.True(t, ok, "line %q", l)
				require.Equal(t, want, got, "line %q", l)
			}
		})
	}
}

func TestLineDFANoDFA(t *testing.T) {
	for _, p := range []string{strings.Repeat("(?:abcdefgh)?", 300)} {
		d, _ := dfaOf(t, p, false)
		require.Nil(t, d, p)
	}
}

func TestLineDFAGivesUp(t *testing.T) {
	// The 13th byte from the end is an 'a': 2^13 states, past the budget.
	d, re := dfaOf(t, "a[ab]{12}", false)
	require.NotNil(t, d)
	gaveUp := false
	for i := 0; i < 1<<14; i += 7 {
		var b strings.Builder
		for k := 0; k < 30; k++ {
			b.WriteByte("ab"[(i>>(k%14))&1])
		}
		line := []byte(b.String())
		got, ok := d.match(line)
		if !ok {
			gaveUp = true
			continue
		}
		require.Equal(t, re.Match(line), got, "line %q", line)
	}
	require.True(t, gaveUp, "the state budget should run out")
	require.LessOrEqual(t, len(d.sets), maxDFAStates)
}

func TestLineDFANonASCII(t *testing.T) {
	d, _ := dfaOf(t, "k", true)
	_, ok := d.match([]byte("the \u212A sign"))
	require.False(t, ok, "a non-ASCII byte is left to the regexp")
}

func TestLineDFAConcurrent(t *testing.T) {
	m, err := Compile("[A-Z]{2,}_[a-z]+[0-9]", false, false)
	require.NoError(t, err)
	text := []byte(strings.Repeat("AB_cd1 x\nzz\nQ_r2\nXY_z9\n", 50))
	want := naive(t, "[A-Z]{2,}_[a-z]+[0-9]", false, text)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got []int
			m.MatchLines(text, func(n, s, e int) bool { got = append(got, n); return true })
			require.Equal(t, want, got)
		}()
	}
	wg.Wait()
}

// FuzzLineDFA checks the DFA against regexp's Match on single lines,
// including the (?m) and (?i) flags Compile adds.
func FuzzLineDFA(f *testing.F) {
	f.Add("[A-Z]{3,}_[A-Z]+ = ", false, "ABC_DEF = 2")
	f.Add("^a|b$", true, "xB")
	f.Add(`\Ax*\z`, false, "xxx")
	f.Add("(?s).k", true, "aK")
	f.Add(`\bfoo\b`, false, "a foo_bar (foo)")
	f.Add(`\B_\b|^\b`, true, "x_ y")
	f.Add(`\b\w+_RESUME\b`, false, "PM_RESUME;\r")
	f.Fuzz(func(t *testing.T, pattern string, ci bool, line string) {
		if _, err := syntax.Parse(pattern, syntax.Perl); err != nil || strings.Contains(line, "\n") {
			return
		}
		m, err := Compile(pattern, ci, false)
		if err != nil || m.dfa == nil {
			return
		}
		got, ok := m.dfa.match([]byte(line))
		if !ok {
			return
		}
		require.Equal(t, m.re.Match([]byte(line)), got)
	})
}

// TestLineDFAWordRandom checks the DFA against regexp on generated
// patterns mixing word boundaries with anchors, classes and repeats, over
// generated lines of word and non-word bytes.
func TestLineDFAWordRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 3))
	pat := []string{`\b`, `\B`, `^`, `$`, `a`, `_`, `-`, ` `, `[a-z]+`, `\w*`, `\W`, `.`, `(?:a|-)`, `x?`, `(?:\bb|c\B)`, `[0-9]`}
	text := []string{"a", "b", "c", "x", "_", "-", " ", "1", "(", "ab", "\r"}
	rounds := map[bool]int{false: 20000, true: 3000}[testing.Short()]
	for range rounds {
		var p, l strings.Builder
		for range 1 + r.IntN(5) {
			p.WriteString(pat[r.IntN(len(pat))])
		}
		for range r.IntN(9) {
			l.WriteString(text[r.IntN(len(text))])
		}
		d, re := dfaOf(t, p.String(), r.IntN(4) == 0)
		got, ok := d.match([]byte(l.String()))
		if ok {
			require.Equal(t, re.Match([]byte(l.String())), got, "pattern %q line %q", p.String(), l.String())
		}
	}
}
