//go:build linux && !toolrpc_portable

package filetable

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/walk"
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
// whole root to spare), not deferred; only its watches are (issue 35):
// none before the first answer, every directory's after BuildDeferred,
// which finds a file changed in between.
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
	require.Zero(t, st.Watches, "no watch before the first answer")

	time.Sleep(tickGap) // the change below has a time no stamp holds
	require.NoError(t, os.WriteFile(filepath.Join(root, "d1/e1/f1.txt"), []byte("longer\n"), 0o644))
	second.BuildDeferred(root)
	second.building.Wait()
	st, _ = second.Stats(root)
	require.Equal(t, st.Dirs, st.Watches, "BuildDeferred watched every directory")
	require.Zero(t, st.Events, "the change came before the watches: a stamp shows it, not an event")
	require.Equal(t, walked(t, root), setListed(t, second, root))
	st, _ = second.Stats(root)
	require.Zero(t, st.Rewalks)
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

// TestStoredTableLazyLoad (issue 35): a stored table loaded lazily (as
// under DeferBuilds) answers its first listing from stamps alone, with no
// watch on a directory whose stamps stand; what changes after those
// stamps and before the watches are added (by buildDeferred, or by the
// next listing itself) shows in the stamps taken after each watch, and
// what changes later as events: every listing equals a cold walk.
func TestStoredTableLazyLoad(t *testing.T) {
	exactStamps(t)
	seed := testSeed(t)
	rounds, restarts := 4, 6
	if testing.Short() {
		rounds, restarts = 2, 4
	}
	for round := range rounds {
		r, m := roundTree(t, seed, round)
		store := filepath.Join(t.TempDir(), "files")
		tab := storedTable(t, m.root, store)
		m.check(tab)
		loads := 0
		for k := range restarts {
			changes := r.Intn(5)
			tab = m.restart(tab, store, changes)
			tab.mu.Lock()
			tab.lazyLoad = true
			tab.mu.Unlock()
			came := time.Now()
			same(t, tab, m.root, m.root)
			st := tab.Stats()
			loads += st.Loads
			if changes == 0 && st.Loads == 1 {
				require.Zero(t, st.Watches, "a lazy load watches nothing before it answers")
			}
			// A call that came before the load stamped (it waited for the
			// load) is answered from those stamps, still unwatched.
			files, ok, err := tab.listAt(context.Background(), Query{Start: m.root}, came)
			require.NoError(t, err)
			require.True(t, ok)
			if want := walked(t, m.root); len(want) > 0 {
				require.Equal(t, want, all(files))
			} else {
				require.Zero(t, files.Len())
			}
			require.Equal(t, st.Watches, tab.Stats().Watches, "a call that came before the stamps adds no watch")
			time.Sleep(tickGap) // no change below shares a timestamp with the lazy stamps
			for range 1 + r.Intn(6) {
				m.step()
			}
			if k%2 == 0 && tab.claimDeferred() {
				tab.buildDeferred(context.Background())
			}
			m.check(tab)
			st = tab.Stats()
			require.Equal(t, st.Dirs, st.Watches, "every directory watched after %v", m.log)
			for range r.Intn(3) {
				m.step()
				m.check(tab)
			}
		}
		require.Positive(t, loads)
	}
}
