package search

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/require"
)

func TestGlobDirs(t *testing.T) {
	require.Nil(t, GlobDirs("*.go"))
	require.Nil(t, GlobDirs("**/*.go"))
	require.Nil(t, GlobDirs("{src,lib}/*.go"))
	d := GlobDirs("src/app/**/*.go")
	for rel, want := range map[string]bool{
		"src": true, "src/app": true, "src/app/x": true, "src/app/x/y": true,
		"lib": false, "src/apple": false, "sr": false, "src/ap": false, "src/lib": false,
	} {
		require.Equal(t, want, d(rel), rel)
	}
}

// FuzzGlobDirs requires GlobDirs never to prune a directory holding a path
// the glob matches.
func FuzzGlobDirs(f *testing.F) {
	f.Add("src/app/**/*.go", "src/app/x/y.go")
	f.Add("a/b", "a/b")
	f.Add("a\\*/b", "a*/b")
	f.Add("a/[bc]/d", "a/b/d")
	f.Fuzz(func(t *testing.T, glob, path string) {
		if !doublestar.ValidatePattern(glob) {
			return
		}
		if ok, _ := doublestar.Match(glob, path); !ok {
			return
		}
		d := GlobDirs(glob)
		if d == nil {
			return
		}
		comps := strings.Split(path, "/")
		for i := 1; i < len(comps); i++ {
			rel := strings.Join(comps[:i], "/")
			require.True(t, d(rel), "glob %q matches %q but prunes %q", glob, path, rel)
		}
	})
}

// FuzzGlobFilter requires the suffix fast paths to answer as doublestar.Match.
func FuzzGlobFilter(f *testing.F) {
	f.Add("*.c", "a/b.c")
	f.Add("**/*.c", ".c")
	f.Add("**/*.go", "x/y/z.go")
	f.Add("*_test.go", "a/é_test.go")
	f.Add("**/*.c", "a.c/b")
	f.Fuzz(func(t *testing.T, suffix, rel string) {
		if strings.ContainsAny(suffix, `*?[]{}\\/`) || rel == "" || strings.HasPrefix(rel, "/") || strings.HasSuffix(rel, "/") {
			return
		}
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		for _, glob := range []string{"*" + suffix, "**/*" + suffix} {
			var want bool
			if strings.Contains(glob, "/") {
				want, _ = doublestar.Match(glob, rel)
			} else {
				want, _ = doublestar.Match(glob, name)
			}
			require.Equal(t, want, GlobFilter(glob)(rel, name), "glob %q rel %q", glob, rel)
		}
	})
}

// TestRarestByCase checks that a case-sensitive literal is scanned for by
// its rarest byte as written: in PM_RESUME an upper-case letter, not the
// underscore that is common in source code (the scan was ten times slower);
// folded, a letter too (both cases together are rarer than "_" in C).
func TestRarestByCase(t *testing.T) {
	lit := []byte("PM_RESUME")
	require.Contains(t, "PMRESU", string(lit[rarest(lit, false)]))
	require.NotEqual(t, byte('_'), lit[rarest(lit, true)], "folded: _ is commoner in C than a letter in both cases")
	require.Equal(t, byte('q'), "equal"[rarest([]byte("equal"), false)])
	// The pair's second byte: of the two m of pm_resume, which rank alike,
	// the one farther from p (rarest), not its neighbour.
	pm := []byte("pm_resume")
	require.Equal(t, 0, rarest(pm, true))
	require.Equal(t, 7, rarestBut(pm, true, 0))
}
