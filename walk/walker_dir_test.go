package walk

import (
	"context"
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
