package walk

import (
	"context"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWalkDir checks that Options.Dir sees exactly the kept subdirectories
// and that refusing one leaves its files out.
func TestWalkDir(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":       "gen/\n",
		"a/x.go":           "",
		"a/b/y.go":         "",
		"a/b/c/z.go":       "",
		"gen/out.go":       "",
		".git/HEAD":        "",
		"skip/me.go":       "",
		"skip/deeper/m.go": "",
	})
	var mu sync.Mutex
	var seen []string
	files, err := Walk(context.Background(), Options{Start: dir, Boundary: dir, Dir: func(rel string) bool {
		mu.Lock()
		seen = append(seen, rel)
		mu.Unlock()
		return rel != "skip"
	}})
	require.NoError(t, err)
	sort.Strings(seen)
	require.Equal(t, []string{"a", "a/b", "a/b/c", "skip"}, seen)
	var got []string
	for _, f := range files {
		got = append(got, f.Rel)
	}
	sort.Strings(got)
	require.Equal(t, []string{".gitignore", "a/b/c/z.go", "a/b/y.go", "a/x.go"}, got)
}

// TestWalkFound checks that Options.Found sees exactly the files Walk returns.
func TestWalkFound(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".gitignore": "*.log\n", "a/x.go": "x", "a/y.log": "", "b/c/z.txt": "zz"})
	for _, start := range []string{dir, filepath.Join(dir, "a", "y.log")} {
		var mu sync.Mutex
		var found []File
		files, err := Walk(context.Background(), Options{Start: start, Boundary: dir, Found: func(f File) {
			mu.Lock()
			found = append(found, f)
			mu.Unlock()
		}})
		require.NoError(t, err)
		SortNewestFirst(found)
		require.Equal(t, files, found)
	}
}
