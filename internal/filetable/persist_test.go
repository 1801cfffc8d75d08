//go:build linux && !toolrpc_portable

package filetable

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/walk"
)

// tickGap outlasts one file system timestamp tick (a jiffy at HZ=100): a
// change made that long after a save has a time no stamp of the save holds.
const tickGap = 15 * time.Millisecond

// exactStamps makes the tests trust every stamp (no racy window), so a
// change the revalidation misses fails them instead of being hidden by a
// re-listing; the tests wait tickGap after each save instead.
func exactStamps(t testing.TB) {
	old := racyWindow
	racyWindow = 0
	t.Cleanup(func() { racyWindow = old })
}

// storedTable returns a new table of root persisting to store, closed with
// the test.
func storedTable(t testing.TB, root, store string) *Table {
	tab := newTable(root, (&testLog{t: t}).logf)
	tab.store = store
	t.Cleanup(tab.Close)
	return tab
}

// restart closes tab (which persists it), waits one tick, applies changes
// while no table is live, and returns a new table of the same store.
func (m *mutator) restart(tab *Table, store string, changes int) *Table {
	tab.Close()
	time.Sleep(tickGap)
	for range changes {
		if !m.step() {
			break
		}
	}
	return storedTable(m.t, m.root, store)
}

// TestStoredTableMatchesWalk persists a table, changes the tree while no
// server runs, and requires the table a new server loads (and revalidates)
// to equal a cold walk, interleaved with live changes as in
// TestTableMatchesWalk.
func TestStoredTableMatchesWalk(t *testing.T) {
	exactStamps(t)
	seed := testSeed(t)
	rounds, restarts := 4, 8
	if testing.Short() {
		rounds, restarts = 2, 5
	}
	for round := range rounds {
		r, m := roundTree(t, seed, round)
		store := filepath.Join(t.TempDir(), "files")
		tab := storedTable(t, m.root, store)
		m.check(tab)
		loads, want := 0, 0
		for range restarts {
			if r.Intn(3) == 0 {
				m.step() // events wait at close: it writes nothing, the older file is loaded
			}
			tab = m.restart(tab, store, 1+r.Intn(8))
			if _, err := os.Stat(store); err == nil {
				want++ // a file to load: none before the first save
			}
			m.check(tab)
			loads += tab.Stats().Loads
			for range r.Intn(3) {
				m.step()
				m.check(tab)
			}
		}
		t.Logf("round %d: %d loads of %d restarts, last %+v", round, loads, restarts, tab.Stats())
		require.Equal(t, want, loads, "every restart loads the persisted table")
	}
}

// FuzzStoredTableMatchesWalk drives the same changes and restarts from fuzz
// bytes: before each change, a byte divisible by 5 restarts the server.
func FuzzStoredTableMatchesWalk(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 5, 3, 1, 1, 7, 0, 3, 1, 1, 10, 0, 4})
	f.Add([]byte{11, 4, 5, 0, 2, 2, 8, 1, 2, 3, 3, 0, 0, 9, 1, 9, 2, 2, 5, 13, 2})
	f.Add([]byte{5, 0, 1, 2, 5, 6, 3, 1, 5, 8, 2, 0, 5, 14, 1, 5, 10, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 200 {
			return
		}
		exactStamps(t)
		c := &byteChooser{b: data}
		m := newMutatorTree(t, c, len(data)%2 == 0)
		store := filepath.Join(t.TempDir(), "files")
		tab := storedTable(t, m.root, store)
		m.check(tab)
		for {
			b, ok := c.intn(5)
			if !ok {
				break
			}
			if b == 0 {
				tab = m.restart(tab, store, 1+m.pick(4))
				m.check(tab)
				require.Equal(t, 1, tab.Stats().Loads)
				continue
			}
			if !m.step() {
				break
			}
			m.check(tab)
		}
	})
}

// TestStoredTableGitCheckout persists the table of a real repository, then,
// with no server live, checks out another branch, edits a file in place to
// the same size with a new time, deletes, renames, adds files and
// directories and changes a nested .gitignore, then the root's: each new
// server's table equals a cold walk.
func TestStoredTableGitCheckout(t *testing.T) {
	exactStamps(t)
	root := tree(t, nil)
	git(t, root, "init", "-q", "-b", "one")
	write := func(rel, content string) { (&mutator{root: root}).write(rel, content) }
	for d := range 12 {
		for f := range 10 {
			rel := fmt.Sprintf("pkg%02d/sub%d/f%03d.go", d, f%3, f)
			write(rel, rel+" of the first branch")
		}
	}
	write(".gitignore", "*.out\n")
	write("pkg05/.gitignore", "sub2/\n")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "one")
	git(t, root, "checkout", "-q", "-b", "two")
	git(t, root, "rm", "-q", "-r", "pkg00", "pkg01", "pkg02", "pkg03")
	write("new/n1/x.go", "x")
	write("pkg07/.gitignore", "*.go\n!f001.go\n")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "two")
	write("pkg04/a.out", "ignored")

	store := filepath.Join(t.TempDir(), "files")
	tab := storedTable(t, root, store)
	same(t, tab, root, root)
	tab.Close()
	time.Sleep(tickGap)

	git(t, root, "checkout", "-q", "one")
	p := filepath.Join(root, "pkg08/sub1/f001.go")
	old, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, []byte(strings.ToUpper(string(old))), 0o644)) // same size
	require.NoError(t, os.Remove(filepath.Join(root, "pkg09/sub0/f000.go")))
	require.NoError(t, os.Rename(filepath.Join(root, "pkg10/sub2"), filepath.Join(root, "pkg10/moved")))
	require.NoError(t, os.Rename(filepath.Join(root, "pkg11/sub0/f003.go"), filepath.Join(root, "pkg11/f003.go")))
	write("pkg06/sub1/late.go", "late")
	write("fresh/deep/er/y.go", "y")
	write("pkg05/.gitignore", "sub1/\n") // same size, other rules
	tab = storedTable(t, root, store)
	same(t, tab, root, root)
	same(t, tab, root, filepath.Join(root, "pkg05"))
	st := tab.Stats()
	t.Logf("%+v", st)
	require.Equal(t, 1, st.Loads)
	require.Equal(t, 0, st.Builds, "nested changes re-list or re-walk only their directories")
	tab.Close()
	time.Sleep(tickGap)

	write(".gitignore", "*.out\npkg1*/\n")
	require.NoError(t, os.Chtimes(filepath.Join(root, "pkg04/sub0/f000.go"), time.Unix(1, 0), time.Unix(1, 0)))
	tab = storedTable(t, root, store)
	same(t, tab, root, root)
	st = tab.Stats()
	require.Equal(t, 1, st.Loads)
	require.Equal(t, 1, st.Builds, "the root's own rules changed: the root is walked again")
}

// TestStoredTableDamaged requires a persisted table that is cut short,
// damaged, of another version or of another root to be ignored: the root
// is walked, and the answer is exact.
func TestStoredTableDamaged(t *testing.T) {
	exactStamps(t)
	root := tree(t, map[string]string{"a/x.go": "x", "b/y.go": "yy", ".gitignore": "*.log\n", "c/z.log": ""})
	store := filepath.Join(t.TempDir(), "files")
	tab := storedTable(t, root, store)
	same(t, tab, root, root)
	tab.Close()
	good, err := os.ReadFile(store)
	require.NoError(t, err)
	resum := func(b []byte) []byte {
		body := b[:len(b)-sha256.Size]
		sum := sha256.Sum256(body)
		return append(body, sum[:]...)
	}
	version := len(storeMagic) // the version is one varint byte after the magic
	cases := map[string][]byte{
		"truncated":     good[:len(good)/2],
		"empty":         nil,
		"flipped byte":  append(append([]byte{}, good[:len(good)/3]...), append([]byte{good[len(good)/3] ^ 0x40}, good[len(good)/3+1:]...)...),
		"other version": resum(append(append(append([]byte{}, good[:version]...), binary.AppendUvarint(nil, storeVersion+1)...), good[version+1:]...)),
		"trailing junk": append(append([]byte{}, good...), 0),
	}
	time.Sleep(tickGap)
	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "new.go"), []byte("n"), 0o644))
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(store, data, 0o600))
			l := &recLog{}
			tab := newTable(root, l.logf)
			tab.store = store
			defer tab.Close()
			require.Len(t, same(t, tab, root, root), 4)
			st := tab.Stats()
			require.Equal(t, 0, st.Loads)
			require.Equal(t, 1, st.Builds)
			require.Contains(t, l.text(), "ignored, walking the root")
		})
	}
	t.Run("good", func(t *testing.T) {
		require.NoError(t, os.WriteFile(store, good, 0o600))
		tab := storedTable(t, root, store)
		require.Len(t, same(t, tab, root, root), 4)
		require.Equal(t, 1, tab.Stats().Loads)
	})
}

// TestTableWithoutStore requires a table with no store to write nothing
// and log nothing when it closes.
func TestTableWithoutStore(t *testing.T) {
	root := tree(t, map[string]string{"a/x.go": "x"})
	l := &recLog{}
	tab := newTable(root, l.logf)
	same(t, tab, root, root)
	tab.Close()
	tab.log.Flush() // a line a save queued
	require.Empty(t, l.text())
	require.NoFileExists(t, filepath.Join(root, "filetable"))
}

// TestStoredTableOutsideRules changes what decides verdicts from outside
// the tree while no server runs — the global excludes file, then the
// .gitignore of the repository above the root, then its info/exclude —
// and requires each new table to equal a cold walk; those changes walk
// the root again instead of loading.
func TestStoredTableOutsideRules(t *testing.T) {
	exactStamps(t)
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(xdg, "none"))
	repo := tree(t, map[string]string{"root/a/x.go": "x", "root/a/y.log": "y", "root/b/z.tmp": "z", "root/c.txt": "c"})
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git", "info"), 0o755))
	root := filepath.Join(repo, "root")
	store := filepath.Join(t.TempDir(), "files")
	write := func(p, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	steps := []struct {
		name   string
		change func()
		loads  int
	}{
		{"unchanged", func() {}, 1},
		{"global excludes", func() { write(filepath.Join(xdg, "git", "ignore"), "*.log\n") }, 0},
		{"repository .gitignore above the root", func() { write(filepath.Join(repo, ".gitignore"), "*.tmp\n") }, 0},
		{"info/exclude", func() { write(filepath.Join(repo, ".git", "info", "exclude"), "c.txt\n") }, 0},
		{"unchanged again", func() {}, 1},
	}
	tab := storedTable(t, root, store)
	n := len(same(t, tab, root, root))
	for _, st := range steps {
		tab.Close()
		time.Sleep(tickGap)
		st.change()
		tab = storedTable(t, root, store)
		got := len(same(t, tab, root, root))
		require.Equal(t, st.loads, tab.Stats().Loads, st.name)
		if st.loads == 0 {
			require.Less(t, got, n, "%s: a rule from outside the tree excluded a file", st.name)
		}
		n = got
	}
}

// TestStoredTableNestedRepo persists the table of a repository holding a
// nested one, changes the nested repository's info/exclude while no server
// runs and again while the loaded table is live: each listing equals a
// cold walk, and a listing starting inside the nested repository is left to
// the walk (its rules have another base).
func TestStoredTableNestedRepo(t *testing.T) {
	exactStamps(t)
	root, write := repoTree(t, "a.txt", "sub/b.txt", "sub/c.log", "sub/d/e.txt", "sub/d/f.log")
	write("sub/.git/info/exclude", "")
	check := func(tab *Table, after string) {
		t.Helper()
		files, ok, err := tab.List(context.Background(), Query{Start: root})
		require.NoError(t, err)
		require.True(t, ok, "after %s", after)
		want, err := walk.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
		require.NoError(t, err)
		require.Equal(t, want, all(files), "after %s", after)
		_, ok, err = tab.List(context.Background(), Query{Start: filepath.Join(root, "sub")})
		require.NoError(t, err)
		require.False(t, ok, "a listing inside the nested repository is the walk's (after %s)", after)
	}
	store := filepath.Join(t.TempDir(), "files")
	tab := storedTable(t, root, store)
	check(tab, "the build")
	tab.Close()
	time.Sleep(tickGap)
	write("sub/.git/info/exclude", "*.log\n")
	tab = storedTable(t, root, store)
	check(tab, "an exclude changed with no server")
	require.Equal(t, 1, tab.Stats().Loads)
	tab.Close()
	time.Sleep(tickGap)
	tab = storedTable(t, root, store) // nothing changed: every directory's stamps stand
	check(tab, "a restart")
	st := tab.Stats()
	require.Equal(t, 1, st.Loads)
	require.Equal(t, 0, st.Rewalks, "the loaded tree serves as it is")
	write("sub/.git/info/exclude", "*.txt\n")
	check(tab, "an exclude changed under the loaded table")
}

// TestStoredTableNewIgnoreFile adds, with no server live, an ignore file
// where none was (in the root and below it) and a .git entry: the rules of
// every directory below change though only the directory holding the new
// entry has a new stamp, and the table a new server loads equals a cold
// walk.
func TestStoredTableNewIgnoreFile(t *testing.T) {
	exactStamps(t)
	for _, add := range []string{".gitignore", ".ignore", "a/.gitignore", "a/.ignore", "a/.git/info/exclude"} {
		t.Run(add, func(t *testing.T) {
			root, write := repoTree(t, "x.log", "a/y.log", "a/b/z.log", "a/b/c/w.log", "a/b/keep.txt")
			store := filepath.Join(t.TempDir(), "files")
			tab := storedTable(t, root, store)
			_, ok, err := tab.List(context.Background(), Query{Start: root})
			require.NoError(t, err)
			require.True(t, ok)
			tab.Close()
			time.Sleep(tickGap)
			write(add, "*.log\n")
			tab = storedTable(t, root, store)
			files, ok, err := tab.List(context.Background(), Query{Start: root})
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, 1, tab.Stats().Loads)
			want, err := walk.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
			require.NoError(t, err)
			require.Equal(t, want, all(files))
		})
	}
}

// repoTree makes a repository top holding files (each holds its own path)
// and returns it with a function that writes a file below it.
func repoTree(t *testing.T, files ...string) (root string, write func(rel, text string)) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	write = func(rel, text string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	for _, p := range files {
		write(p, p)
	}
	return root, write
}

// TestStoredTableWatchLimit loads a persisted table with too few watches
// left for its directories: the workers that add them stop, the table
// turns itself off and says so, and listings are left to the caller.
func TestStoredTableWatchLimit(t *testing.T) {
	root, _ := repoTree(t, "a/x", "b/y", "c/d/z", "e/f/g/h")
	store := filepath.Join(t.TempDir(), "files")
	tab := storedTable(t, root, store)
	listed(t, tab, root)
	tab.mu.Lock()
	outside := len(tab.special) // watched before any directory of the tree
	tab.mu.Unlock()
	tab.Close()
	old := watchBudget
	watchBudget = outside + 2
	t.Cleanup(func() { watchBudget = old })
	requireLoadOff(t, root, store, "max_user_watches")
}

// TestStoredTableUnreliableMount loads a persisted table with a directory
// on another file system (a tmpfs mounted below the root) that the new
// server no longer trusts (a verdict a later version may give): its stamps
// stand, yet the table turns itself off.
func TestStoredTableUnreliableMount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root (CI runs as root)")
	}
	root, _ := repoTree(t, "a/x")
	mnt := filepath.Join(root, "m")
	require.NoError(t, os.Mkdir(mnt, 0o755))
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, ""); err != nil {
		t.Skip("cannot mount a tmpfs:", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "y"), []byte("y"), 0o644))
	time.Sleep(tickGap)
	store := filepath.Join(t.TempDir(), "files")
	tab := storedTable(t, root, store)
	listed(t, tab, root)
	tab.Close()
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(mnt, &st))
	unreliableFS[int64(st.Type)] = "test-fs"
	t.Cleanup(func() { delete(unreliableFS, int64(st.Type)) })
	requireLoadOff(t, root, store, "test-fs")
}

// listed requires tab to answer a listing of root.
func listed(t *testing.T, tab *Table, root string) {
	t.Helper()
	_, ok, err := tab.List(context.Background(), Query{Start: root})
	require.NoError(t, err)
	require.True(t, ok)
}

// requireLoadOff requires a new table of root that finds store to turn
// itself off at its first listing, with a log line holding why, and to
// leave that listing to the caller.
func requireLoadOff(t *testing.T, root, store, why string) {
	t.Helper()
	l := &recLog{}
	tab := newTable(root, l.logf)
	tab.store = store
	t.Cleanup(tab.Close)
	_, ok, err := tab.List(context.Background(), Query{Start: root})
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, "off", tab.Stats().State)
	require.Contains(t, l.text(), why)
}

// TestStoredTable_RecreatedRootHeldOpen replaces the root while a process
// holds it open (a command's cwd, a server's descriptor): the kernel then
// holds back the old root's DELETE_SELF, and its watch reports nothing of
// the new root. The root's last entry removed (a plain one, not an ignore
// file) made the table list the root again, by path, while the new root
// held src/ alone; the files copied into it next (big.txt, .gitignore)
// went unseen, and the next server loaded that listing under the new
// root's stamps. The root's parent reports the root's name deleted at
// once: the table is dropped, and live and loaded tables equal a walk.
func TestStoredTable_RecreatedRootHeldOpen(t *testing.T) {
	exactStamps(t)
	replaceHeldOpen(t, filepath.Join(t.TempDir(), "ws"))
}

// replaceHeldOpen builds the stored table of root, replaces root while it
// is held open as TestStoredTable_RecreatedRootHeldOpen does, and requires
// every answer of the live table, and of the next server's, to equal a
// cold walk.
func replaceHeldOpen(t *testing.T, root string) {
	fill := func(names ...string) {
		files := map[string]string{"src/a.txt": "a", "src/b/c.txt": "c", "big.txt": "big", ".gitignore": "build/\n", "build/out.txt": "o"}
		for _, n := range names {
			p := filepath.Join(root, n)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(files[n]), 0o644))
		}
	}
	fill("src/a.txt", "src/b/c.txt", "big.txt", ".gitignore", "build/out.txt")
	store := filepath.Join(t.TempDir(), "files")
	s := NewStoredSet([]string{root}, func(string) string { return store }, (&testLog{t: t}).logf)
	t.Cleanup(func() { s.Close() })
	// asWalk requires s's answer, when it has one, to equal a cold walk.
	asWalk := func(what string) {
		t.Helper()
		files, ok, err := s.List(context.Background(), root, Query{Start: root})
		require.NoError(t, err)
		want, err := walk.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
		require.NoError(t, err)
		if ok {
			require.Equal(t, rels(want), rels(all(files)), what)
		}
	}
	asWalk("built")
	held, err := os.Open(root)
	require.NoError(t, err)
	defer held.Close()
	for _, n := range []string{"src", "big.txt", ".gitignore"} {
		require.NoError(t, os.RemoveAll(filepath.Join(root, n)))
	}
	asWalk("old root emptied but for build/")
	require.NoError(t, os.RemoveAll(root))
	fill("src/a.txt", "src/b/c.txt")
	asWalk("new root with src/ alone")
	fill("big.txt", ".gitignore", "build/out.txt")
	asWalk("new root complete")
	time.Sleep(tickGap)
	asWalk("new root complete, a tick later")
	s.Close()
	s = NewStoredSet([]string{root}, func(string) string { return store }, (&testLog{t: t}).logf)
	asWalk("next server")
}

// TestStoredTable_UnwatchedParentHeldOpen is
// TestStoredTable_RecreatedRootHeldOpen with a root whose parent cannot be
// watched (no read permission for the server): no event tells of the new
// root, so each listing checks the root's identity itself.
func TestStoredTable_UnwatchedParentHeldOpen(t *testing.T) {
	exactStamps(t)
	parent := filepath.Join(t.TempDir(), "p")
	unwatchable = func(path string) bool { return path == parent }
	t.Cleanup(func() { unwatchable = nil })
	replaceHeldOpen(t, filepath.Join(parent, "ws"))
}

// TestStoredTable_GlobalExcludesDirIsParent is
// TestStoredTable_RecreatedRootHeldOpen with the global excludes directory
// ($XDG_CONFIG_HOME/git) the root's parent: its one watch guards both the
// global excludes file and the root's name.
func TestStoredTable_GlobalExcludesDirIsParent(t *testing.T) {
	exactStamps(t)
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	replaceHeldOpen(t, filepath.Join(config, "git", "ws"))
}

// TestStoredTable_MissedEventsNotVouchedFor makes a live table miss every
// event (as a kernel holding one back, an overflow not noticed or a
// directory that could not be watched would), changes entries and an
// ignore file, and closes it: the save writes the stamps each directory had
// when the table listed it, not the changed directory's, so the next
// server lists the changed directories again and equals a cold walk. A
// save that stamped the directories by path vouched for the stale listing.
func TestStoredTable_MissedEventsNotVouchedFor(t *testing.T) {
	exactStamps(t)
	root := tree(t, map[string]string{"a/x.txt": "x", "b/y.txt": "y", "c/.gitignore": "*.log\n", "c/k.log": "k", "c/k.txt": "k", "top.txt": "t"})
	var miss atomic.Bool
	missEvent = func(event) bool { return miss.Load() }
	t.Cleanup(func() { missEvent = nil })
	store := filepath.Join(t.TempDir(), "files")
	tab := storedTable(t, root, store)
	same(t, tab, root, root)
	time.Sleep(tickGap) // no change below shares a timestamp with the listing
	miss.Store(true)
	require.NoError(t, os.WriteFile(filepath.Join(root, "a/new.txt"), []byte("n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(root, "b/y.txt")))
	require.NoError(t, os.WriteFile(filepath.Join(root, "c/.gitignore"), []byte("*.txt\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "root.txt"), []byte("r"), 0o644))
	tab.Close()
	miss.Store(false)
	time.Sleep(tickGap)
	tab = storedTable(t, root, store)
	same(t, tab, root, root)
	require.Equal(t, 1, tab.Stats().Loads)
}
