package gitignore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// wildmatchCases are cases from git's t3070-wildmatch: the result without
// and with WM_PATHNAME.
var wildmatchCases = []struct {
	pat, text      string
	plain, pathnam bool
}{
	{"foo", "foo", true, true},
	{"bar", "foo", false, false},
	{"???", "foo", true, true},
	{"??", "foo", false, false},
	{"*", "foo", true, true},
	{"f*", "foo", true, true},
	{"*f", "foo", false, false},
	{"*foo*", "foo", true, true},
	{"*ob*a*r*", "foobar", true, true},
	{"*ab", "aaaaaaabababab", true, true},
	{"foo\\*", "foo*", true, true},
	{"foo\\*bar", "foobar", false, false},
	{"f\\\\oo", "f\\oo", true, true},
	{"*[al]?", "ball", true, true},
	{"[ten]", "ten", false, false},
	{"**[!te]", "ten", true, true},
	{"**[!ten]", "ten", false, false},
	{"t[a-g]n", "ten", true, true},
	{"t[!a-g]n", "ten", false, false},
	{"t[!a-g]n", "ton", true, true},
	{"t[^a-g]n", "ton", true, true},
	{"a[]]b", "a]b", true, true},
	{"a[]-]b", "a-b", true, true},
	{"a[]-]b", "a]b", true, true},
	{"a[]-]b", "aab", false, false},
	{"a[]a-]b", "aab", true, true},
	{"]", "]", true, true},
	{"foo*bar", "foo/baz/bar", true, false},
	{"foo**bar", "foo/baz/bar", true, false},
	{"foo**bar", "foobazbar", true, true},
	{"foo/**/bar", "foo/baz/bar", true, true},
	{"foo/**/**/bar", "foo/baz/bar", false, true},
	{"foo/**/bar", "foo/b/a/z/bar", true, true},
	{"foo/**/bar", "foo/bar", false, true},
	{"foo?bar", "foo/bar", true, false},
	{"foo[/]bar", "foo/bar", true, false},
	{"foo[^a-z]bar", "foo/bar", true, false},
	{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true, true},
	{"**/foo", "foo", false, true},
	{"**/foo", "XXX/foo", true, true},
	{"**/foo", "bar/baz/foo", true, true},
	{"*/foo", "bar/baz/foo", true, false},
	{"**/bar*", "foo/bar/baz", true, false},
	{"**/bar/*", "deep/foo/bar/baz", true, true},
	{"**/bar/*", "deep/foo/bar/baz/", true, false},
	{"**/bar/**", "deep/foo/bar/baz/", true, true},
	{"**/bar/*", "deep/foo/bar", false, false},
	{"**/bar/**", "deep/foo/bar/", true, true},
	{"*/bar/**", "foo/bar/baz/x", true, true},
	{"*/bar/**", "deep/foo/bar/baz/x", true, false},
	{"**/bar/*/*", "deep/foo/bar/baz/x", true, true},
	{"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true, true},
	{"[[:digit:][:upper:][:space:]]", "a", false, false},
	{"[[:digit:][:upper:][:space:]]", "A", true, true},
	{"[[:digit:][:upper:][:spaci:]]", "1", false, false},
	{"[[:digit:][:punct:][:space:]]", ".", true, true},
	{"[[:xdigit:]]", "f", true, true},
	{"[a-c[:digit:]x-z]", "5", true, true},
	{"[a-c[:digit:]x-z]", "y", true, true},
	{"[a-c[:digit:]x-z]", "q", false, false},
	{"[\\]]", "]", true, true},
	{"[\\]]", "\\]", false, false},
	{"[\\]", "\\", false, false},
	{"[!]-]", "]", false, false},
	{"[!]-]", "a", true, true},
	{"\\", "", false, false},
	{"\\", "\\", false, false},
	{"*/*/*", "foo/bb/aa/rr", true, false},
	{"**/**/**", "foo/bb/aa/rr", true, true},
	{"*X*i", "abcXdefXghi", true, true},
	{"*X*i", "abcXdef/ghi", true, false},
	{"*/*X*/*/*i", "ab/cXd/efXg/hi", true, true},
	{"**/*X*/**/*i", "ab/cXd/efXg/hi", true, true},
	{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true, true},
	{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true, true},
}

func TestWildmatch(t *testing.T) {
	for _, c := range wildmatchCases {
		require.Equal(t, c.plain, Wildmatch(c.pat, c.text, false), "%q vs %q", c.pat, c.text)
		require.Equal(t, c.pathnam, Wildmatch(c.pat, c.text, true), "%q vs %q (pathname)", c.pat, c.text)
	}
}

// FuzzWildmatch checks that no pattern panics or loops, and that a
// pattern without wildcards matches exactly itself.
func FuzzWildmatch(f *testing.F) {
	f.Add("a/**/b", "a/x/b", true)
	f.Add("[[:alpha:]-z]*", "q-", false)
	f.Add("\\", "\\", true)
	f.Fuzz(func(t *testing.T, pat, text string, pathname bool) {
		if len(pat) > 64 || len(text) > 64 {
			return
		}
		got := Wildmatch(pat, text, pathname)
		if !hasWildcard(pat) {
			require.Equal(t, pat == text, got)
		}
	})
}
