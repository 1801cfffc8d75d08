package textmatch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/patch"
)

func TestFindIsExactThenCRLFThenLines(t *testing.T) {
	cases := []struct {
		name, text, old string
		how             How
		lines           []int
	}{
		{"exact, every occurrence", "a x\nb\na x\n", "a x", Exact, []int{1, 3}},
		{"crlf read as lf", "a\r\nb\r\nc\r\n", "a\nb", CRLF, []int{1}},
		{"trailing whitespace", "a  \nb\n", "a\nb", Lines, []int{1}},
		{"unicode punctuation", "x \u2014 y\n", "x - y", Lines, []int{1}},
		{"none", "abc\n", "zzz", Exact, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Find(tc.text, tc.old)
			var lines []int
			for _, m := range r.Matches {
				lines = append(lines, m.Line)
			}
			require.Equal(t, tc.lines, lines)
			if len(lines) > 0 {
				require.Equal(t, tc.how, r.How)
			}
		})
	}
}

func TestClosestFindsTheNearestWindow(t *testing.T) {
	first, w := Closest("a\nfunc foo() {\n\treturn 1\n}\nz\n", "func foo(x) {\n\treturn 1", 2)
	require.Equal(t, 2, first)
	require.Equal(t, []string{"func foo() {", "\treturn 1"}, w)
}

func FuzzFind(f *testing.F) {
	f.Add("a\r\nb\r\n", "a\nb")
	f.Add("x  \ny\n", "x\ny")
	f.Fuzz(func(t *testing.T, text, old string) {
		r := Find(text, old)
		for i, m := range r.Matches {
			if m.Start < 0 || m.End > len(text) || m.Start > m.End {
				t.Fatalf("match %d out of range: %+v", i, m)
			}
			if i > 0 && m.Start < r.Matches[i-1].End {
				t.Fatalf("matches overlap")
			}
			if want := strings.Count(text[:m.Start], "\n") + 1; m.Line != want {
				t.Fatalf("match %d says line %d, starts on %d", i, m.Line, want)
			}
			if r.How == Exact && text[m.Start:m.End] != old {
				t.Fatalf("exact match is not old")
			}
		}
		if r.How == Lines && r.Tol == patch.Exact && len(r.Matches) > 0 && strings.Contains(text, old) {
			t.Fatalf("a line match where the exact text occurs")
		}
		Closest(text, old, 3)
	})
}
