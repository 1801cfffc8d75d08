//go:build linux && !toolrpc_portable

package filetable

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/walk"
)

// deferredTree writes n files in a few directories below a new root and
// returns the root (symlinks evaluated, as a Set's roots are).
func deferredTree(t *testing.T, n int) string {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for i := range n {
		p := filepath.Join(root, fmt.Sprintf("d%d/e%d/f%d.txt", i%4, i%3, i))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644))
	return root
}

// walked returns what walk.Walk lists of root now.
func walked(t *testing.T, root string) []walk.File {
	files, err := walk.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
	require.NoError(t, err)
	return files
}

// setListed returns what s lists of root, as walk.Files read out.
func setListed(t *testing.T, s *Set, root string) []walk.File {
	files, err := s.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
	require.NoError(t, err)
	out := make([]walk.File, files.Len())
	for i := range out {
		out[i] = files.At(i)
	}
	return out
}

// TestDeferredBuild (issue 35, SPEC §12): with DeferBuilds, a fresh root's
// first listing walks as walk.Walk does and builds no table (no watch, no
// walk of its own); BuildDeferred builds the table on a goroutine of its
// own, showing no progress, and the next listing (which waits for the
// build) answers from the live table, equal to a cold walk after a change
// made meanwhile.
func TestDeferredBuild(t *testing.T) {
	root := deferredTree(t, 60)
	s := NewSet([]string{root}, nil)
	s.DeferBuilds()
	t.Cleanup(s.Close)

	require.Equal(t, walked(t, root), setListed(t, s, root))
	st, ok := s.Stats(root)
	require.True(t, ok)
	require.Equal(t, "new", st.State, "the first listing built no table")
	require.Zero(t, st.Builds)
	require.Zero(t, st.Watches)

	s.BuildDeferred(root)
	require.NoError(t, os.WriteFile(filepath.Join(root, "d1/new.txt"), []byte("y\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d2/skip.log"), []byte("y\n"), 0o644))
	require.Equal(t, walked(t, root), setListed(t, s, root))
	st, _ = s.Stats(root)
	require.Equal(t, "live", st.State, "the second listing answered from the table")
	require.Equal(t, 1, st.Builds, "one walk built it")
	require.Equal(t, st.Dirs, st.Watches)

	s.BuildDeferred(root) // nothing deferred now: no second build
	require.Equal(t, walked(t, root), setListed(t, s, root))
	st, _ = s.Stats(root)
	require.Equal(t, 1, st.Builds)
}

// TestDeferredBuildNotWithStoredTable: a root whose table an earlier set
// saved is loaded and revalidated by the first listing (no walk of the
// whole root to spare), not deferred.
func TestDeferredBuildNotWithStoredTable(t *testing.T) {
	exactStamps(t) // the tree is seconds old: its stamps are trusted
	root := deferredTree(t, 30)
	store := filepath.Join(t.TempDir(), "files")
	first := NewStoredSet([]string{root}, func(string) string { return store }, nil)
	first.DeferBuilds()
	setListed(t, first, root)
	first.BuildDeferred(root)
	setListed(t, first, root) // waits for the build
	first.Close()             // saves
	_, err := os.Stat(store)
	require.NoError(t, err, "the closed set saved its table")

	second := NewStoredSet([]string{root}, func(string) string { return store }, nil)
	second.DeferBuilds()
	t.Cleanup(second.Close)
	require.Equal(t, walked(t, root), setListed(t, second, root))
	st, _ := second.Stats(root)
	require.Equal(t, "live", st.State)
	require.Equal(t, 1, st.Loads, "the saved table was loaded by the first listing")
	require.Zero(t, st.Builds)
}

// TestDeferredBuildClosed: a set closed while its deferred build runs
// returns, and a closed set's BuildDeferred does nothing.
func TestDeferredBuildClosed(t *testing.T) {
	root := deferredTree(t, 3000)
	s := NewSet([]string{root}, nil)
	s.DeferBuilds()
	setListed(t, s, root)
	s.BuildDeferred(root)
	s.Close()
	st, ok := s.Stats(root)
	require.False(t, ok, "a closed set has no tables: %+v", st)
	s.BuildDeferred(root)
}
