//go:build linux && !toolrpc_portable

package filetable

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/walk"
)

// recLog records log lines for assertions.
type recLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *recLog) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.TrimSpace(sprintf(format, args...)))
}

func (l *recLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// tree writes files (content by path) under a fresh, symlink-evaluated root.
func tree(t *testing.T, files map[string]string) string {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for p, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(c), 0o644))
	}
	return root
}

// same requires the table's listing of start to equal a cold walk.
func same(t *testing.T, tab *Table, root, start string) []walk.File {
	t.Helper()
	files, ok, err := tab.List(context.Background(), Query{Start: start})
	require.NoError(t, err)
	require.True(t, ok)
	got := all(files)
	want, err := walk.Walk(context.Background(), walk.Options{Start: start, Boundary: root})
	require.NoError(t, err)
	require.Equal(t, len(want), len(got))
	if len(want) > 0 {
		require.Equal(t, want, got)
	}
	return got
}

func rels(fs []walk.File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rel)
	}
	return out
}

// TestTableOverflow fills the real inotify queue past
// fs.inotify.max_queued_events while the table is locked, then requires the
// overflow to be logged and the next listing to walk the root again.
func TestTableOverflow(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "a", "b.txt": "b"})
	l := &recLog{}
	tab := newTable(root, l.logf)
	t.Cleanup(tab.Close)
	same(t, tab, root, root)
	limit, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	require.NoError(t, err)
	n := atoi(strings.TrimSpace(string(limit)))
	tab.mu.Lock() // the reader cannot drain
	fa, err := os.OpenFile(filepath.Join(root, "a.txt"), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	fb, err := os.OpenFile(filepath.Join(root, "b.txt"), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	for range n/2 + 10 { // alternate files: the kernel merges only repeats of the last event
		_, _ = fa.Write([]byte("x"))
		_, _ = fb.Write([]byte("y"))
	}
	fa.Close()
	fb.Close()
	require.NoError(t, os.WriteFile(filepath.Join(root, "c.txt"), []byte("new"), 0o644))
	tab.mu.Unlock()
	got := same(t, tab, root, root)
	require.Contains(t, rels(got), "c.txt")
	st := tab.Stats()
	require.GreaterOrEqual(t, st.Overflows, 1)
	require.Equal(t, 2, st.Builds)
	require.Contains(t, l.text(), "inotify queue overflowed")
}

// TestTableWatchLimit runs out of watches and requires the table to turn
// itself off, say so in the log, and leave listings to the caller.
func TestTableWatchLimit(t *testing.T) {
	root := tree(t, map[string]string{"a/x": "", "b/y": "", "c/d/z": ""})
	l := &recLog{}
	old := watchBudget
	watchBudget = 3
	t.Cleanup(func() { watchBudget = old })
	tab := newTable(root, l.logf)
	t.Cleanup(tab.Close)
	_, ok, err := tab.List(context.Background(), Query{Start: root})
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, "off", tab.Stats().State)
	require.Contains(t, l.text(), "max_user_watches")
	_, ok, _ = tab.List(context.Background(), Query{Start: root})
	require.False(t, ok)
}

// TestTableWatchLimitLater runs out of watches when a new directory appears
// after the build.
func TestTableWatchLimitLater(t *testing.T) {
	root := tree(t, map[string]string{"a/x": ""})
	l := &recLog{}
	tab := newTable(root, l.logf)
	t.Cleanup(tab.Close)
	same(t, tab, root, root)
	old := watchBudget
	watchBudget = 1
	t.Cleanup(func() { watchBudget = old })
	require.NoError(t, os.MkdirAll(filepath.Join(root, "new", "deeper"), 0o755))
	_, ok, err := tab.List(context.Background(), Query{Start: root})
	require.NoError(t, err)
	require.False(t, ok)
	require.Contains(t, l.text(), "max_user_watches")
}

// TestTableUnreliableFS gives the root's own file system the verdict of an
// unreliable one (the statfs call is real) and requires no table.
func TestTableUnreliableFS(t *testing.T) {
	root := tree(t, map[string]string{"a": ""})
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(root, &st))
	typ := int64(st.Type)
	unreliableFS[typ] = "test-fs"
	t.Cleanup(func() { delete(unreliableFS, typ) })
	l := &recLog{}
	tab := newTable(root, l.logf)
	t.Cleanup(tab.Close)
	_, ok, err := tab.List(context.Background(), Query{Start: root})
	require.NoError(t, err)
	require.False(t, ok)
	require.Contains(t, l.text(), "test-fs")
}

// TestFSMagicNumbers checks the magic numbers against the kernel's names.
func TestFSMagicNumbers(t *testing.T) {
	require.Equal(t, "nfs", unreliableFS[unix.NFS_SUPER_MAGIC])
	require.Equal(t, "smb", unreliableFS[unix.SMB_SUPER_MAGIC])
	require.Equal(t, "cifs", unreliableFS[unix.CIFS_SUPER_MAGIC])
	require.Equal(t, "smb2", unreliableFS[unix.SMB2_SUPER_MAGIC])
	require.Equal(t, "fuse", unreliableFS[unix.FUSE_SUPER_MAGIC])
	require.Equal(t, "9p", unreliableFS[unix.V9FS_MAGIC])
	require.Equal(t, "overlay", unreliableFS[unix.OVERLAYFS_SUPER_MAGIC])
	require.Equal(t, "afs", unreliableFS[unix.AFS_SUPER_MAGIC])
	require.Equal(t, "kafs", unreliableFS[unix.AFS_FS_MAGIC])
	require.Equal(t, "ceph", unreliableFS[unix.CEPH_SUPER_MAGIC])
	require.Equal(t, "coda", unreliableFS[unix.CODA_SUPER_MAGIC])
	require.Equal(t, "", fsUnreliable(os.TempDir()), "the test's temp dir must be on a watched file system")
}

// TestTableRootGone deletes the root: the table is dropped, and the Set
// builds a new one when the root is back.
func TestTableRootGone(t *testing.T) {
	root := tree(t, map[string]string{"a/x": "1"})
	l := &recLog{}
	s := NewSet([]string{root}, l.logf)
	t.Cleanup(s.Close)
	_, ok, err := s.List(context.Background(), root, Query{Start: root})
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, os.RemoveAll(root))
	_, ok, err = s.List(context.Background(), root, Query{Start: root})
	require.NoError(t, err)
	require.False(t, ok)
	require.Contains(t, l.text(), "table dropped")
	_, has := s.Stats(root)
	require.False(t, has)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "b"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "b", "y"), nil, 0o644))
	files, ok, err := s.List(context.Background(), root, Query{Start: root})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []string{"b/y"}, rels(all(files)))
}

// TestTableIgnoreChanges edits ignore files at and below the root and in
// info/exclude.
func TestTableIgnoreChanges(t *testing.T) {
	root := tree(t, map[string]string{".git/info/x": "", "a/x.log": "", "a/y.go": "", "b/z.log": "", "b/c/w.log": ""})
	tab := newTable(root, (&recLog{}).logf)
	t.Cleanup(tab.Close)
	require.Len(t, same(t, tab, root, root), 4)
	require.NoError(t, os.WriteFile(filepath.Join(root, "b", ".gitignore"), []byte("*.log\n"), 0o644))
	require.Equal(t, []string{"a/x.log", "a/y.go", "b/.gitignore"}, sorted(rels(same(t, tab, root, root))))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte("a/\n"), 0o644))
	require.Equal(t, []string{"b/.gitignore"}, sorted(rels(same(t, tab, root, root))))
	require.NoError(t, os.Remove(filepath.Join(root, "b", ".gitignore")))
	require.Equal(t, []string{"b/c/w.log", "b/z.log"}, sorted(rels(same(t, tab, root, root))))
	same(t, tab, root, filepath.Join(root, "b"))
	// A directory that became ignored is not a start the table answers for.
	_, ok, err := tab.List(context.Background(), Query{Start: filepath.Join(root, "a")})
	require.NoError(t, err)
	require.False(t, ok)
}

// TestTableRootIgnored opens a root inside a directory its repository
// ignores: the table answers for the root only.
func TestTableRootIgnored(t *testing.T) {
	top := tree(t, map[string]string{".git/HEAD": "", ".gitignore": "vendor/\n*.log\n", "vendor/lib/a/x.log": "", "vendor/lib/a/y.go": ""})
	root := filepath.Join(top, "vendor", "lib")
	tab := newTable(root, (&recLog{}).logf)
	t.Cleanup(tab.Close)
	same(t, tab, root, root)
	_, ok, err := tab.List(context.Background(), Query{Start: filepath.Join(root, "a")})
	require.NoError(t, err)
	require.False(t, ok, "a walk of a/ treats it as an explicit path; only the root's walk is in the table")

	top2 := tree(t, map[string]string{".git/HEAD": "", ".gitignore": "*.log\n", "src/a/x.log": "", "src/a/y.go": ""})
	root2 := filepath.Join(top2, "src")
	tab2 := newTable(root2, (&recLog{}).logf)
	t.Cleanup(tab2.Close)
	require.Equal(t, []string{"a/y.go"}, rels(same(t, tab2, root2, root2)))
	same(t, tab2, root2, filepath.Join(root2, "a"))
	// An ignore file between the repository and the root changes verdicts.
	require.NoError(t, os.WriteFile(filepath.Join(top2, ".gitignore"), []byte("*.go\n"), 0o644))
	require.Equal(t, []string{"a/x.log"}, rels(same(t, tab2, root2, root2)))
}

// TestParseEvents decodes records as the kernel lays them out.
func TestParseEvents(t *testing.T) {
	buf := appendEvent(nil, 3, unix.IN_CREATE, "a.txt", 16)
	buf = appendEvent(buf, 4, unix.IN_Q_OVERFLOW, "", 0)
	var got []event
	require.NoError(t, parseEvents(buf, func(e event) { got = append(got, e) }))
	require.Equal(t, []event{{wd: 3, mask: unix.IN_CREATE, name: "a.txt"}, {wd: 4, mask: unix.IN_Q_OVERFLOW}}, got)
	require.Error(t, parseEvents(buf[:10], func(event) {}))
	require.Error(t, parseEvents(appendEvent(nil, 1, 0, "abc", 64)[:20], func(event) {}))
}

// appendEvent lays out one inotify record with a name field of nameLen bytes.
func appendEvent(buf []byte, wd int32, mask uint32, name string, nameLen int) []byte {
	var h [unix.SizeofInotifyEvent]byte
	binary.NativeEndian.PutUint32(h[0:], uint32(wd))
	binary.NativeEndian.PutUint32(h[4:], mask)
	binary.NativeEndian.PutUint32(h[12:], uint32(nameLen))
	buf = append(buf, h[:]...)
	field := make([]byte, nameLen)
	copy(field, name)
	return append(buf, field...)
}

// FuzzParseEvents requires the decoder never to read past its buffer and to
// return names without NUL bytes.
func FuzzParseEvents(f *testing.F) {
	f.Add(appendEvent(appendEvent(nil, 1, unix.IN_CREATE, "x", 16), 2, unix.IN_IGNORED, "", 0))
	f.Add([]byte{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 127})
	f.Fuzz(func(t *testing.T, b []byte) {
		total := 0
		err := parseEvents(b, func(e event) {
			total += unix.SizeofInotifyEvent
			require.NotContains(t, e.name, "\x00")
		})
		if err == nil {
			require.LessOrEqual(t, total, len(b))
		}
	})
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func sorted(s []string) []string { sort.Strings(s); return s }

// TestTableFound checks that the build hands over, while it walks, every
// file of the answer (and only files below the start that keep keeps).
func TestTableFound(t *testing.T) {
	root := tree(t, map[string]string{".gitignore": "*.log\n", "a/x.go": "1", "a/y.log": "", "a/b/z.go": "22", "c/w.go": ""})
	tab := newTable(root, (&recLog{}).logf)
	t.Cleanup(tab.Close)
	var mu sync.Mutex
	var found []walk.File
	start := filepath.Join(root, "a")
	keep := func(rel, name string) bool { return strings.HasSuffix(name, ".go") }
	files, ok, err := tab.List(context.Background(), Query{Start: start, Keep: keep, Found: func(f walk.File) {
		mu.Lock()
		found = append(found, f)
		mu.Unlock()
	}})
	require.NoError(t, err)
	require.True(t, ok)
	walk.SortNewestFirst(found)
	require.Equal(t, all(files), found)
	require.Equal(t, []string{"b/z.go", "x.go"}, sorted(rels(all(files))))
	// A warm table does not walk, so nothing is handed over.
	found = nil
	_, ok, _ = tab.List(context.Background(), Query{Start: start, Found: func(f walk.File) { found = append(found, f) }})
	require.True(t, ok)
	require.Empty(t, found)
}

// TestSetWalk answers from the table for a root of the set and walks for
// anything else, both as walk.Walk would.
func TestSetWalk(t *testing.T) {
	root := tree(t, map[string]string{".gitignore": "node_modules/\n", "a/x.go": "1", "node_modules/m/i.js": ""})
	other := tree(t, map[string]string{"o.txt": ""})
	s := NewSet([]string{root}, (&recLog{}).logf)
	t.Cleanup(s.Close)
	for _, opts := range []walk.Options{
		{Start: root, Boundary: root},
		{Start: filepath.Join(root, "node_modules"), Boundary: root}, // an explicit path into an ignored tree
		{Start: filepath.Join(root, "a", "x.go"), Boundary: root},
		{Start: other, Boundary: other},
	} {
		want, err := walk.Walk(context.Background(), opts)
		require.NoError(t, err)
		got, err := s.Walk(context.Background(), opts)
		require.NoError(t, err)
		require.Equal(t, want, all(got))
	}
	st, ok := s.Stats(root)
	require.True(t, ok)
	require.Equal(t, 2, st.Files)
	_, ok = s.Stats(other)
	require.False(t, ok)
}

// all reads every file of a listing.
func all(files walk.Files) []walk.File {
	var out []walk.File
	for i := range files.Len() {
		out = append(out, files.At(i))
	}
	return out
}

// TestTableUnreliableMountBelowRoot: a walk asks the file system only of
// the root and of the mount points below it (from mountinfo), and still
// finds an unreliable one two levels down whose name needs mountinfo's
// escapes: the build turns the table off and names it. The same tree
// without the verdict gets its table.
func TestTableUnreliableMountBelowRoot(t *testing.T) {
	root := tree(t, map[string]string{"a/b/keep.txt": "x", "c/d.txt": "y"})
	mnt := filepath.Join(root, "a", "b", "m n\\t")
	require.NoError(t, os.Mkdir(mnt, 0o755))
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, ""); err != nil {
		t.Skip("cannot mount a tmpfs:", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "y"), []byte("y"), 0o644))
	mounts, ok := mountsBelow(root)
	require.True(t, ok)
	require.Equal(t, map[string]bool{mnt: true}, mounts)

	tab := newTable(root, t.Logf)
	_, ok, err := tab.List(context.Background(), Query{Start: root})
	require.NoError(t, err)
	require.True(t, ok, "a tmpfs is reliable")
	tab.Close()

	var st, rootSt unix.Statfs_t
	require.NoError(t, unix.Statfs(mnt, &st))
	require.NoError(t, unix.Statfs(root, &rootSt))
	if st.Type == rootSt.Type {
		t.Skip("the test's tree is on a tmpfs too")
	}
	unreliableFS[int64(st.Type)] = "test-fs"
	t.Cleanup(func() { delete(unreliableFS, int64(st.Type)) })
	l := &recLog{}
	tab = newTable(root, l.logf)
	t.Cleanup(tab.Close)
	_, ok, err = tab.List(context.Background(), Query{Start: root})
	require.NoError(t, err)
	require.False(t, ok)
	require.Contains(t, l.text(), "test-fs")
	require.Contains(t, l.text(), mnt)
}

// TestTableOpen checks that the build hands Query.Open every file of the
// answer, opened by the walk (a descriptor ≥ 0) when the query lists the
// whole root, and by path (-1) when it keeps only some files: the walk
// would open files the answer leaves out.
func TestTableOpen(t *testing.T) {
	for _, keep := range []bool{false, true} {
		root := tree(t, map[string]string{".gitignore": "*.log\n", "a/x.go": "1", "a/y.log": "", "a/b/z.go": "22", "c/w.txt": ""})
		tab := newTable(root, (&recLog{}).logf)
		t.Cleanup(tab.Close)
		var mu sync.Mutex
		var opened []walk.File
		var fds []int
		q := Query{Start: root, Found: func(walk.File) { t.Error("Found called with Open set") }, Open: func(f walk.File, fd int) {
			mu.Lock()
			defer mu.Unlock()
			opened, fds = append(opened, f), append(fds, fd)
		}}
		if keep {
			q.Keep = func(rel, name string) bool { return strings.HasSuffix(name, ".go") }
		}
		files, ok, err := tab.List(context.Background(), q)
		require.NoError(t, err)
		require.True(t, ok)
		walk.SortNewestFirst(opened)
		require.Equal(t, all(files), opened, "keep %v", keep)
		for _, fd := range fds {
			require.Equal(t, keep, fd < 0, "keep %v: descriptor %d", keep, fd)
		}
	}
}
