package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestExcludedReplay checks that exclusions captured with Options.Exclude
// and replayed give Excluded what a walk collecting them gives it.
func TestExcludedReplay(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore": "*.log\nbuild/\n", "a/x.log": "", "a/y.go": "", "a/build/z.go": "", "b/c/w.log": "", "b/c/v.txt": "",
	})
	keep := func(rel, name string) bool { return !strings.HasSuffix(name, ".txt") }
	want := &Excluded{}
	_, err := Walk(context.Background(), Options{Start: dir, Boundary: dir, Keep: keep, Excluded: want})
	require.NoError(t, err)
	var mu sync.Mutex
	byDir := map[string][]Exclusion{}
	_, err = Walk(context.Background(), Options{Start: dir, Boundary: dir, Exclude: func(dirRel string, x Exclusion) {
		mu.Lock()
		byDir[dirRel] = append(byDir[dirRel], x)
		mu.Unlock()
	}})
	require.NoError(t, err)
	got := &Excluded{}
	for rel, xs := range byDir {
		got.Replay(dir, rel, xs, keep)
	}
	w, g := want.Count(context.Background(), 1000), got.Count(context.Background(), 1000)
	require.Equal(t, 3, w.Files) // a/x.log, b/c/w.log, a/build/z.go
	require.Equal(t, w.Files, g.Files)
	require.Equal(t, w.RuleFiles, g.RuleFiles)
	require.Equal(t, w.Rule.Text, g.Rule.Text)
}

// TestWalkUnsorted checks that Options.Unsorted returns the files of the
// sorted walk, and that the sorted walk orders them newest first with ties
// by Abs (files of equal mtime, as an extracted archive leaves them).
func TestWalkUnsorted(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("d%d/f%02d.go", i%4, i)] = "x"
	}
	writeTree(t, dir, files)
	base := time.Now().Add(-time.Hour)
	i := 0
	for rel := range files {
		mt := base.Add(time.Duration(i%3) * time.Second) // many ties
		require.NoError(t, os.Chtimes(filepath.Join(dir, rel), mt, mt))
		i++
	}
	sorted, err := Walk(context.Background(), Options{Start: dir, Boundary: dir})
	require.NoError(t, err)
	require.Len(t, sorted, 60)
	for k := 1; k < len(sorted); k++ {
		a, b := sorted[k-1], sorted[k]
		require.True(t, a.ModTime > b.ModTime || a.ModTime == b.ModTime && a.Abs < b.Abs, "%s before %s", a.Abs, b.Abs)
	}
	unsorted, err := Walk(context.Background(), Options{Start: dir, Boundary: dir, Unsorted: true})
	require.NoError(t, err)
	SortNewestFirst(unsorted)
	require.Equal(t, sorted, unsorted)
}
