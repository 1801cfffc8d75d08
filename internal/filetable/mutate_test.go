//go:build linux && !toolrpc_portable

package filetable

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/walk"
)

// chooser picks numbers; math/rand drives the random test, fuzz bytes the
// fuzz target, through the same mutator.
type chooser interface {
	// intn returns a number in [0, n); ok is false when the source is spent.
	intn(n int) (int, bool)
}

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int) (int, bool) { return c.r.Intn(n), true }

type byteChooser struct{ b []byte }

func (c *byteChooser) intn(n int) (int, bool) {
	if len(c.b) == 0 {
		return 0, false
	}
	v := int(c.b[0]) % n
	c.b = c.b[1:]
	return v, true
}

// mutator changes a tree under root the ways editors, git and shells do.
// outside is a directory beside the root that directories move to and from.
type mutator struct {
	t       testing.TB
	root    string
	outside string
	c       chooser
	clock   int64
	log     []string
}

var (
	dirNames  = []string{"a", "b", "src", "build", "node_modules", "gen", ".cfg"}
	fileNames = []string{"x.go", "y.log", "keep.log", "z.txt", ".hidden", "m.c", "n.tmp", "a", "build"}
	rules     = []string{"*.log", "!keep.log", "build/", "*.tmp", "/a", "b/", "node_modules/", "src/**/gen", "a/*.go",
		"!*.go", "**/z.txt", "[xy].*", "# comment", "", "gen", "/src/", "*", "!b/", "\\#x", ".cfg/"}
)

func (m *mutator) pick(n int) int {
	v, _ := m.c.intn(n)
	return v
}

// entries lists every directory and file below root (ignored ones too),
// sorted, with "" for the root itself among the directories.
func (m *mutator) entries() (dirs, files []string) {
	dirs = []string{""}
	_ = filepath.WalkDir(m.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == m.root {
			return nil
		}
		rel, _ := filepath.Rel(m.root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
		case d.IsDir():
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			dirs = append(dirs, rel)
		default:
			files = append(files, rel)
		}
		return nil
	})
	return dirs, files
}

// newPath returns a path below a random existing directory, up to two new
// directories deep.
func (m *mutator) newPath(dirs []string, names []string) string {
	p := dirs[m.pick(len(dirs))]
	for range m.pick(3) {
		p = filepath.Join(p, dirNames[m.pick(len(dirNames))])
	}
	return filepath.Join(p, names[m.pick(len(names))])
}

// stamp gives path one of a few modification times, so ties occur.
func (m *mutator) stamp(p string) {
	mt := time.Unix(1700000000+int64(m.pick(6))*3600, 0)
	_ = os.Chtimes(p, mt, mt)
}

func (m *mutator) write(rel, content string) {
	p := filepath.Join(m.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	_ = os.WriteFile(p, []byte(content), 0o644)
}

func (m *mutator) rules() string {
	var b strings.Builder
	for range m.pick(4) {
		b.WriteString(rules[m.pick(len(rules))])
		b.WriteByte('\n')
	}
	return b.String()
}

// step applies one random change and returns false when the chooser is spent.
func (m *mutator) step() bool {
	op, ok := m.c.intn(15)
	if !ok {
		return false
	}
	dirs, files := m.entries()
	anyFile := func() string {
		if len(files) == 0 {
			return m.newPath(dirs, fileNames)
		}
		return files[m.pick(len(files))]
	}
	anyDir := func() string { return dirs[m.pick(len(dirs))] }
	var what string
	switch {
	case op >= 8:
		what = m.stepMore(op, dirs, anyFile, anyDir)
	default:
		what = m.stepFiles(op, dirs, anyFile, anyDir)
	}
	m.log = append(m.log, what)
	return true
}

// stepFiles applies a change of files (ops 0–7) and describes it.
func (m *mutator) stepFiles(op int, dirs []string, anyFile, anyDir func() string) string {
	abs := func(rel string) string { return filepath.Join(m.root, rel) }
	var what string
	switch op {
	case 0: // create a file
		p := m.newPath(dirs, fileNames)
		m.write(p, strings.Repeat("x", m.pick(40)))
		m.stamp(abs(p))
		what = "create " + p
	case 1: // write (append or truncate) a file
		p := anyFile()
		flag := os.O_APPEND
		if m.pick(2) == 0 {
			flag = os.O_TRUNC
		}
		if f, err := os.OpenFile(abs(p), os.O_WRONLY|flag, 0); err == nil {
			_, _ = f.WriteString(strings.Repeat("y", m.pick(30)))
			f.Close()
		}
		what = "write " + p
	case 2: // rename a file
		from, to := anyFile(), m.newPath(dirs, fileNames)
		_ = os.MkdirAll(filepath.Dir(abs(to)), 0o755)
		_ = os.Rename(abs(from), abs(to))
		what = "rename " + from + " " + to
	case 3: // rm -rf
		p := anyDir()
		if p == "" || m.pick(3) == 0 {
			p = anyFile()
		}
		_ = os.RemoveAll(abs(p))
		what = "rm -rf " + p
	case 4: // mkdir -p
		p := m.newPath(dirs, dirNames)
		_ = os.MkdirAll(abs(p), 0o755)
		what = "mkdir " + p
	case 5, 6: // edit an ignore file
		name := map[int]string{5: ".gitignore", 6: ".ignore"}[op]
		p := filepath.Join(anyDir(), name)
		if m.pick(4) == 0 {
			_ = os.Remove(abs(p))
		} else {
			m.write(p, m.rules())
		}
		what = "rules " + p
	case 7: // an editor's atomic save: write a temp file, rename it over
		p := anyFile()
		tmp := p + ".swp~"
		m.write(tmp, strings.Repeat("z", m.pick(50)))
		m.stamp(abs(tmp))
		_ = os.Rename(abs(tmp), abs(p))
		what = "save " + p
	}
	return what
}

// stepMore applies a change of directories, symlinks or exclude (ops 8–14)
// and describes it.
func (m *mutator) stepMore(op int, dirs []string, anyFile, anyDir func() string) string {
	abs := func(rel string) string { return filepath.Join(m.root, rel) }
	var what string
	switch op {
	case 8: // rename a directory within the tree
		from, to := anyDir(), m.newPath(dirs, dirNames)
		if from != "" && !strings.HasPrefix(to+"/", from+"/") {
			_ = os.MkdirAll(filepath.Dir(abs(to)), 0o755)
			_ = os.Rename(abs(from), abs(to))
		}
		what = "mv " + from + " " + to
	case 9: // move a directory out of the tree, or one back in
		out := filepath.Join(m.outside, "d")
		if _, err := os.Stat(out); err == nil {
			to := m.newPath(dirs, dirNames)
			_ = os.MkdirAll(filepath.Dir(abs(to)), 0o755)
			_ = os.Rename(out, abs(to))
			what = "mv in " + to
		} else if p := anyDir(); p != "" {
			_ = os.Rename(abs(p), out)
			what = "mv out " + p
		}
	case 10: // touch
		p := anyFile()
		m.stamp(abs(p))
		what = "touch " + p
	case 11: // a checkout: many files at once
		n := 20 + m.pick(60)
		for i := range n {
			p := m.newPath(dirs, fileNames)
			m.write(p, fmt.Sprint(i))
		}
		what = fmt.Sprintf("checkout %d files", n)
	case 12: // symlinks, which walks never follow
		p := m.newPath(dirs, fileNames)
		_ = os.MkdirAll(filepath.Dir(abs(p)), 0o755)
		_ = os.Symlink(abs(anyDir()), abs(p))
		what = "symlink " + p
	case 13: // the repository's info/exclude
		_ = os.MkdirAll(filepath.Join(m.root, ".git", "info"), 0o755)
		_ = os.WriteFile(filepath.Join(m.root, ".git", "info", "exclude"), []byte(m.rules()), 0o644)
		what = "exclude"
	case 14: // replace a directory by a file of the same name, or back
		p := anyDir()
		if p != "" {
			_ = os.RemoveAll(abs(p))
			m.write(p, "was a dir")
		}
		what = "dir->file " + p
	}
	return what
}

// keptDirs lists the directories a walk of the root enters.
func keptDirs(t testing.TB, root string) []string {
	var mu sync.Mutex
	dirs := []string{""}
	_, err := walk.Walk(context.Background(), walk.Options{Start: root, Boundary: root, Dir: func(rel string) bool {
		mu.Lock()
		dirs = append(dirs, rel)
		mu.Unlock()
		return true
	}})
	require.NoError(t, err)
	sort.Strings(dirs)
	return dirs
}

// globKeeps are the filters the queries use.
var globKeeps = []func(rel, name string) bool{
	nil,
	func(rel, name string) bool { return strings.HasSuffix(name, ".go") },
	func(rel, name string) bool { return strings.Contains(rel, "/") },
}

// dirFilters are the subdirectory prunings the queries use.
var dirFilters = []func(rel string) bool{
	nil,
	func(rel string) bool { return !strings.HasSuffix(rel, "b") },
	func(rel string) bool { return strings.HasPrefix(rel, "src") || strings.HasPrefix("src", rel) },
}

// check compares every listing the table gives with a cold walk.
func (m *mutator) check(tab *Table) {
	t := m.t
	dirs := keptDirs(t, m.root)
	starts := []string{""}
	for range 2 {
		starts = append(starts, dirs[m.pick(len(dirs))])
	}
	for _, rel := range starts {
		start := tab.abs(rel)
		keep := globKeeps[m.pick(len(globKeeps))]
		dir := dirFilters[m.pick(len(dirFilters))]
		gotEx := &walk.Excluded{}
		files, ok, err := tab.List(context.Background(), Query{Start: start, Keep: keep, Dir: dir, Excluded: gotEx})
		require.NoError(t, err)
		require.True(t, ok, "table cannot answer for %q after %v (stats %+v)", rel, m.log, tab.Stats())
		got := all(files)
		wantEx := &walk.Excluded{}
		want, err := walk.Walk(context.Background(), walk.Options{Start: start, Boundary: m.root, Keep: keep, Dir: dir, Excluded: wantEx})
		require.NoError(t, err)
		if len(want) == 0 {
			want = nil
		}
		if len(got) == 0 {
			got = nil
		}
		require.Equal(t, want, got, "start %q after %d changes: %s", rel, len(m.log), strings.Join(m.log, "; "))
		require.Equal(t, excludedSummary(wantEx), excludedSummary(gotEx), "exclusions of %q after %d changes: %s", rel, len(m.log), strings.Join(m.log, "; "))
	}
}

// newMutatorTree makes a root (a git repository top when git is set) and
// the directory beside it.
func newMutatorTree(t testing.TB, c chooser, git bool) *mutator {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	out := filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.MkdirAll(out, 0o755))
	if git {
		require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	}
	root, err := filepath.EvalSymlinks(root)
	require.NoError(t, err)
	return &mutator{t: t, root: root, outside: out, c: c}
}

// excludedSummary is what a search's notice reports of an Excluded.
func excludedSummary(ex *walk.Excluded) string {
	c := ex.Count(context.Background(), 1<<20)
	if c.Rule == nil {
		return fmt.Sprintf("%d files, capped %v", c.Files, c.Capped)
	}
	return fmt.Sprintf("%d files, capped %v, %s:%d %s excluded %d", c.Files, c.Capped, c.Rule.Source, c.Rule.Line, c.Rule.Text, c.RuleFiles)
}
