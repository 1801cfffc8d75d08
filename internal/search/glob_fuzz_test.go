package search

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/walk"
)

// globFuzzFiles is the tree FuzzGlobWindow globs: names that patterns with
// classes, alternatives, escapes and ** tell apart.
var globFuzzFiles = []string{
	"a.go", "b.go", "ab.txt", ".hidden", "a[1].go", "a*b", "x/a.go", "x/y/a.go",
	"x/y/z/b.txt", "y/.a.go", "y/{a}.go", "z/a b.go", "z/é.go", "x/a/b/c/d.go",
	"1/2/3/4/5/6.go", "q?.go", "back\\slash.go", "x/b.go", "y/a.txt", "a.go.bak",
}

// FuzzGlobWindow checks Glob and GlobWindow against a brute-force oracle on
// a fixed tree: CheckGlob refuses every invalid pattern; otherwise the
// matches are the window [offset, offset+limit) of every file the pattern
// matches, newest first with ties by path, count is their number and
// truncated says whether more remain.
func FuzzGlobWindow(f *testing.F) {
	f.Add("**/*.go", int64(5), int64(0))
	f.Add("*", int64(100), int64(0))
	f.Add("x/**", int64(2), int64(1))
	f.Add("{a,b}.go", int64(1000), int64(0))
	f.Add("[", int64(1), int64(0))
	f.Add("a\\[1].go", int64(1), int64(0))
	f.Add("**/[!a]*", int64(3), int64(7))
	f.Add("*.go", int64(0), int64(0))
	f.Add("*.go", int64(1001), int64(0))
	f.Add("*.go", int64(10), int64(-1))
	f.Add("**", int64(7), int64(1<<40))
	root, err := filepath.EvalSymlinks(f.TempDir())
	require.NoError(f, err)
	display := func(abs string) string { rel, _ := filepath.Rel(root, abs); return filepath.ToSlash(rel) }
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range globFuzzFiles {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(f, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(f, os.WriteFile(p, []byte("x\n"), 0o644))
		mt := base.Add(-time.Duration(i/3) * time.Hour) // three files share each mtime
		require.NoError(f, os.Chtimes(p, mt, mt))
	}
	type file struct {
		rel string
		mt  time.Time
	}
	var all []file
	require.NoError(f, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		all = append(all, file{filepath.ToSlash(rel), fi.ModTime()})
		return nil
	}))
	sort.Slice(all, func(i, j int) bool {
		if !all[i].mt.Equal(all[j].mt) {
			return all[i].mt.After(all[j].mt)
		}
		return all[i].rel < all[j].rel
	})

	f.Fuzz(func(t *testing.T, pattern string, limit, offset int64) {
		if !doublestar.ValidatePattern(pattern) {
			require.Error(t, CheckGlob(pattern), "pattern %q accepted", pattern)
			return
		}
		if pattern == "" || CheckGlob(pattern) != nil || limit < 1 || limit > 1000 || offset < 0 {
			return // the adapter refuses these before Glob
		}
		ex := &walk.Excluded{}
		files, err := Glob(context.Background(), nil, pattern, root, root, ex)
		require.NoError(t, err)
		got := GlobWindow(context.Background(), files, ex, offset, limit, display)
		var want []string
		for _, fl := range all {
			if ok, _ := doublestar.Match(pattern, fl.rel); ok {
				want = append(want, fl.rel)
			}
		}
		total := int64(len(want))
		if offset > total {
			offset = total
		}
		end := offset + limit
		if end > total {
			end = total
		}
		window := append([]string{}, want[offset:end]...)
		require.Equal(t, window, got.Matches, "pattern %q limit %d offset %d", pattern, limit, offset)
		require.Equal(t, len(window), got.Count)
		require.Equal(t, end < total, got.Truncated)
		if got.Truncated {
			require.Contains(t, got.Notice, "offset=")
		}
	})
}
