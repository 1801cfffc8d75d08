package search

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// naive is the reference: the regexp run on each line alone.
func naive(t testing.TB, pattern string, ci bool, buf []byte) []int {
	t.Helper()
	p := "(?m)" + pattern
	if ci {
		p = "(?mi)" + pattern
	}
	re := regexp.MustCompile(p)
	var out []int
	lineScan(buf, func(n, s, e int) bool {
		if re.Match(buf[s:e]) {
			out = append(out, n)
		}
		return true
	})
	return out
}

func matched(t testing.TB, pattern string, ci, multiline bool, buf []byte) []int {
	t.Helper()
	m, err := Compile(pattern, ci, multiline)
	require.NoError(t, err)
	var out []int
	m.MatchLines(buf, func(n, s, e int) bool {
		require.Equal(t, -1, bytes.IndexByte(buf[s:e], '\n'))
		out = append(out, n)
		return true
	})
	return out
}

func TestMatchLines(t *testing.T) {
	text := []byte("foo bar\nFOO\r\nbaz\nthe Kelvin \u212A and long \u017F\nkelvin\nx = 1\nABC_DEF = 2\n1234567890\nend")
	tests := []struct {
		name    string
		pattern string
		ci      bool
		want    []int
	}{
		{"literal", "foo", false, []int{1}},
		{"fold", "foo", true, []int{1, 2}},
		{"kelvin sign folds to k", "k", true, []int{4, 5}},
		{"long s folds to s", "ſ", true, []int{4}},
		{"anchored end before CR", "FOO$", false, nil},
		{"weak literal", "[A-Z]{3,}_[A-Z]+ = ", false, []int{7}},
		{"no literal", "[0-9]{10}", false, []int{8}},
		{"cross-line class not joined", `bar\sFOO`, false, nil},
		{"empty", "", false, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"text anchor", `\Abaz`, false, []int{3}},
		{"alternation", "baz|end", false, []int{3, 9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, matched(t, tc.pattern, tc.ci, false, text))
			require.Equal(t, tc.want, naive(t, tc.pattern, tc.ci, text))
		})
	}
}

func TestMultiline(t *testing.T) {
	text := []byte("a\nfoo\nbar\nbaz\nfoo\n")
	tests := []struct {
		name    string
		pattern string
		want    []int
	}{
		{"span", `foo\nbar`, []int{2, 3}},
		{"dot crosses newline", `bar.baz`, []int{3, 4}},
		{"single line", `baz`, []int{4}},
		{"ending at newline", `baz\n`, []int{4}},
		{"two matches", `foo`, []int{2, 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, matched(t, tc.pattern, false, true, text))
		})
	}
}

func TestLiteralExtraction(t *testing.T) {
	tests := []struct {
		pattern string
		ci      bool
		want    string
		fold    bool
	}{
		{"foo", false, "foo", false},
		{"func [a-z]+Handler", false, "Handler", false},
		{"(?:abc)+x", false, "abc", false},
		{"desk", true, "DE", true},
		{"[0-9]{10}", false, "", false},
		{"a|b", false, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			m, err := Compile(tc.pattern, tc.ci, false)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(m.lit))
			require.Equal(t, tc.fold, m.fold)
		})
	}
}

func TestCompileError(t *testing.T) {
	_, err := Compile("(foo", false, false)
	require.ErrorContains(t, err, "missing closing )")
}

func FuzzMatchLines(f *testing.F) {
	f.Add("foo", false, []byte("foo\nbar foo\n"))
	f.Add("k", true, []byte("\u212A\nK\nx"))
	f.Add("[a-z]+_x", true, []byte("AB_X\n\xff\xfeab_x"))
	f.Add(`a\sb`, false, []byte("a\nb\na b"))
	f.Add(`^$`, false, []byte("\n\n"))
	f.Add(`\z`, false, []byte("x\ny"))
	f.Fuzz(func(t *testing.T, pattern string, ci bool, buf []byte) {
		if _, err := regexp.Compile(pattern); err != nil {
			return
		}
		require.Equal(t, naive(t, pattern, ci, buf), matched(t, pattern, ci, false, buf))
	})
}

func BenchmarkGorootLiteral(b *testing.B) {
	var bufs [][]byte
	_ = filepath.Walk("/usr/local/go/src", func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && filepath.Ext(p) == ".go" {
			data, _ := os.ReadFile(p)
			bufs = append(bufs, data)
		}
		return nil
	})
	if len(bufs) == 0 {
		b.Skip("no corpus")
	}
	for _, tc := range []struct {
		name, pattern string
		ci            bool
	}{{"literal", "func main", false}, {"fold", "errorf", true}, {"weak", "[A-Z]{3,}_[A-Z]+ = ", false}, {"none", "[0-9]{10}", false}} {
		b.Run(tc.name, func(b *testing.B) {
			m, err := Compile(tc.pattern, tc.ci, false)
			require.NoError(b, err)
			for i := 0; i < b.N; i++ {
				for _, buf := range bufs {
					m.MatchLines(buf, func(n, s, e int) bool { return true })
				}
			}
		})
	}
}
