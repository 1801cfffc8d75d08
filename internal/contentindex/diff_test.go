package contentindex

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/search"
	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// tree is a generated directory whose files get distinct, old mtimes (so
// the racy window does not keep them out of the index) unless a mutation
// says otherwise.
type tree struct {
	t     *testing.T
	r     *rand.Rand
	root  string
	clock time.Time // the next mtime handed out
}

func newTree(t *testing.T, r *rand.Rand) *tree {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	tr := &tree{t: t, r: r, root: root, clock: time.Now().Add(-time.Hour)}
	for range 4 + r.IntN(20) {
		tr.write(tr.randomName(), false)
	}
	return tr
}

func (tr *tree) randomName() string {
	dirs := []string{"", "a/", "a/b/", "c/"}
	exts := []string{".txt", ".go", ".png", "", ".c"}
	return fmt.Sprintf("%sf%d%s", dirs[tr.r.IntN(len(dirs))], tr.r.IntN(40), exts[tr.r.IntN(len(exts))])
}

// write gives rel new random content; fresh leaves the mtime at now (racy).
func (tr *tree) write(rel string, fresh bool) {
	abs := filepath.Join(tr.root, rel)
	require.NoError(tr.t, os.MkdirAll(filepath.Dir(abs), 0o755))
	require.NoError(tr.t, os.WriteFile(abs, genEncoded(tr.r, tr.r.IntN(60)), 0o644))
	if !fresh {
		tr.clock = tr.clock.Add(time.Second)
		require.NoError(tr.t, os.Chtimes(abs, tr.clock, tr.clock))
	}
}

// mutate adds, rewrites or deletes a few files.
func (tr *tree) mutate() {
	files := tr.files()
	for range 1 + tr.r.IntN(4) {
		switch k := tr.r.IntN(5); {
		case k == 0 && len(files) > 0:
			if err := os.Remove(files[tr.r.IntN(len(files))].Abs); !os.IsNotExist(err) {
				require.NoError(tr.t, err)
			}
		case k == 1 || len(files) == 0:
			tr.write(tr.randomName(), tr.r.IntN(2) == 0)
		default:
			tr.write(files[tr.r.IntN(len(files))].Rel, tr.r.IntN(3) == 0)
		}
	}
}

// files lists the tree as grep's walk does, newest first.
func (tr *tree) files() walk.FileList {
	files, err := walk.Walk(context.Background(), walk.Options{Start: tr.root, Boundary: tr.root})
	require.NoError(tr.t, err)
	walk.SortNewestFirst(files)
	return files
}

// snapshot is a walk.FileList whose SnapshotKey is its backing array, as
// the file table's listings have one: Candidates caches its codes.
type snapshot struct{ walk.FileList }

func (s snapshot) SnapshotKey() any {
	if len(s.FileList) == 0 {
		return nil
	}
	return &s.FileList[0]
}

// matchingFiles returns the files grep's matcher finds a match in, read
// whole, except those grep skips (SPEC §4): binary by name, or by content
// (the sniff of the file's head, as grep sniffs it).
func matchingFiles(t *testing.T, m *search.Matcher, files walk.FileList) []string {
	var out []string
	for _, f := range files {
		if walk.IsBinaryName(f.Abs) {
			continue
		}
		b, err := os.ReadFile(f.Abs)
		require.NoError(t, err)
		if _, bin, _ := walk.SniffText(b, true); bin {
			continue
		}
		if matches(m, decoded(b)) {
			out = append(out, f.Rel)
		}
	}
	return out
}

// decoded returns the text grep matches in a file's bytes b: decoded when
// the sniff names an encoding that transcodes (SPEC §4.1), else b.
func decoded(b []byte) []byte {
	enc, _, _ := walk.SniffText(b, len(b) <= limits.SniffBytes)
	if !enc.Transcoded() {
		return b
	}
	text, _ := enc.Decode(bytes.TrimPrefix(b, enc.BOM()))
	return []byte(text)
}

// genEncoded is genText, one file in eight written in windows-1252 (from
// the tokens it has) and one in eight in UTF-16LE with a BOM.
func genEncoded(r *rand.Rand, n int) []byte {
	switch r.IntN(8) {
	case 0:
		var b strings.Builder
		for range n {
			b.WriteString(latinTokens[r.IntN(len(latinTokens))])
		}
		out, err := textenc.Windows1252.Encode(b.String())
		if err != nil {
			panic(err)
		}
		return out
	case 1:
		out, err := textenc.UTF16LE.Encode(strings.ToValidUTF8(string(genText(r, n)), "?"))
		if err != nil {
			panic(err)
		}
		return append(append([]byte(nil), textenc.UTF16LE.BOM()...), out...)
	}
	return genText(r, n)
}

// latinTokens are the tokens windows-1252 can write, with more accents.
var latinTokens = []string{"foo", "Foo", "bar", "é", "É", "ß", "été", "café", "crème", "\r\n", "\n", " ", "k", "s", "S", "ab", "abc", "func"}

// checkCandidates fails unless the candidates keep files' order and hold
// every file that matches.
func checkCandidates(t *testing.T, mgr *Manager, tr *tree, pattern string, ci, ml bool) (narrowed bool) {
	t.Helper()
	m, err := search.Compile(pattern, ci, ml)
	if err != nil {
		return false
	}
	q, err := plan(pattern, ci, ml)
	require.NoError(t, err)
	files := tr.files()
	var listing walk.Files = files
	if tr.r.IntN(2) == 1 {
		// The same snapshot twice: the second call reads the cached codes.
		sn := snapshot{files}
		mgr.Candidates(q, sn)
		listing = sn
	}
	cands, ok := mgr.Candidates(q, listing)
	var rels, all []string
	for i := range cands.Len() {
		rels = append(rels, cands.At(i).Rel)
	}
	for _, f := range files {
		all = append(all, f.Rel)
	}
	if !ok {
		require.Equal(t, all, rels, "without the index every file is a candidate")
	}
	// Order is kept: the candidates are a subsequence of files.
	i := 0
	for _, c := range rels {
		for i < len(all) && all[i] != c {
			i++
		}
		require.Less(t, i, len(all), "candidate %s out of order", c)
	}
	if !ok {
		require.Equal(t, len(files), cands.Len())
	}
	for _, want := range matchingFiles(t, m, files) {
		require.Contains(t, rels, want, "pattern %q (i=%v s=%v, query %s): %s matches but is no candidate", pattern, ci, ml, q, want)
	}
	checkSpans(t, m, cands, pattern)
	return ok && cands.Len() < len(files)
}

// spansChecked counts the candidates checkSpans found spans for.
var spansChecked atomic.Int64

// checkSpans fails unless the spans of each candidate (MatchSpans) are
// ascending ranges of whole lines of the file, hold every line with a
// match, and are given only for text grep matches undecoded.
func checkSpans(t *testing.T, m *search.Matcher, cands walk.Files, pattern string) {
	t.Helper()
	ms, ok := cands.(search.MatchSpans)
	if !ok {
		return
	}
	for i := range cands.Len() {
		spans := ms.MatchSpans(i)
		if spans == nil {
			continue
		}
		spansChecked.Add(1)
		f := cands.At(i)
		b, err := os.ReadFile(f.Abs)
		require.NoError(t, err)
		enc, bin, _ := walk.SniffText(b, len(b) <= limits.SniffBytes)
		require.False(t, bin || enc.Transcoded(), "%s has spans but is binary or decoded", f.Rel)
		lineStart := func(at int64) bool { return at == 0 || at == int64(len(b)) || b[at-1] == '\n' }
		for k, sp := range spans {
			if sp[1] == math.MaxInt64 { // to the file's end
				sp[1] = int64(len(b))
				spans = slices.Clone(spans)
				spans[k] = sp
			}
			require.True(t, sp[0] < sp[1] && sp[1] <= int64(len(b)) && (k == 0 || spans[k-1][1] < sp[0]),
				"%s: span %d of %v out of order or bounds", f.Rel, k, spans)
			require.True(t, lineStart(sp[0]) && lineStart(sp[1]), "%s: span %v is not whole lines", f.Rel, sp)
		}
		m.MatchLines(b, func(_, s, e int) bool {
			in := slices.ContainsFunc(spans, func(sp [2]int64) bool { return sp[0] <= int64(s) && int64(e) <= sp[1] })
			require.True(t, in, "pattern %q: %s has a match on the line [%d, %d), outside its spans %v", pattern, f.Rel, s, e, spans)
			return true
		})
	}
}

// waitReady triggers a build with a first call and waits for it.
func waitReady(t *testing.T, mgr *Manager, tr *tree) {
	t.Helper()
	mgr.Candidates(&Query{Op: OpAnd, Tri: []uint64{uint64(pack('a', 'b', 'c'))}}, tr.files())
	mgr.settle()
	require.True(t, mgr.Ready(), "the index is built")
}

// builtIndex builds the index of tr in a new dataDir by a manager it then
// closes; it returns the dataDir and the closed manager (its dir, Builds).
func builtIndex(t *testing.T, tr *tree) (string, *Manager) {
	t.Helper()
	dataDir := t.TempDir()
	first := Open(Options{DataDir: dataDir, Root: tr.root, CPUPercent: 100, Logf: t.Logf})
	waitReady(t, first, tr)
	first.Close()
	return dataDir, first
}

// runDifferential builds an index of a random tree, then interleaves random
// mutations with random queries.
func runDifferential(t *testing.T, seed uint64, rounds int) (narrowed int) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	defer func(b, p int) { blockBytes, runPairs = b, p }(blockBytes, runPairs)
	if r.IntN(2) == 0 {
		blockBytes = 8 + r.IntN(64) // files of several blocks
		runPairs = 64 + r.IntN(512) // and runs written while one is read
	}
	tr := newTree(t, r)
	mgr := Open(Options{DataDir: t.TempDir(), Root: tr.root, CPUPercent: 100, Logf: t.Logf})
	defer mgr.Close()
	waitReady(t, mgr, tr)
	for round := range rounds {
		if round > 0 && r.IntN(2) == 0 {
			tr.mutate()
		}
		for range 4 {
			if checkCandidates(t, mgr, tr, genPattern(r, 3), r.IntN(2) == 0, r.IntN(5) == 0) {
				narrowed++
			}
		}
		if r.IntN(2) == 0 {
			mgr.settle() // let the overlay read what the calls found changed
		}
	}
	return narrowed
}

func TestDifferentialRandomTrees(t *testing.T) {
	n := 30
	if testing.Short() {
		n = 6
	}
	narrowed := 0
	for seed := range uint64(n) {
		narrowed += runDifferential(t, seed, 12)
	}
	// The test must be able to fail: queries did narrow the search.
	require.Greater(t, narrowed, n, "the index narrowed some searches")
}

// FuzzDifferential replays a random tree, mutations and patterns per seed.
func FuzzDifferential(f *testing.F) {
	for _, s := range []uint64{1, 7, 42} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		runDifferential(t, seed, 6)
	})
}

// TestOverlayServesChangedFiles: a file rewritten after the build is read
// into the overlay, after which the index narrows by its new content.
func TestOverlayServesChangedFiles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tr := newTree(t, r)
	mgr := Open(Options{DataDir: t.TempDir(), Root: tr.root, CPUPercent: 100, Logf: t.Logf})
	defer mgr.Close()
	waitReady(t, mgr, tr)
	rel := "zz/new.txt"
	abs := filepath.Join(tr.root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
	require.NoError(t, os.WriteFile(abs, []byte("needle_one\n"), 0o644))
	old := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(abs, old, old))
	q, err := plan("needle_one", false, false)
	require.NoError(t, err)
	rels := func(q *Query) []string {
		c, ok := mgr.Candidates(q, tr.files())
		require.True(t, ok)
		var out []string
		for i := range c.Len() {
			if b, err := os.ReadFile(c.At(i).Abs); err == nil {
				if enc, bin, _ := walk.SniffText(b, len(b) <= limits.SniffBytes); bin || enc.Transcoded() {
					continue // binary or in another encoding: always a candidate
				}
			}
			out = append(out, c.At(i).Rel)
		}
		return out
	}
	require.Equal(t, []string{rel}, rels(q), "a new file is a candidate at once")
	mgr.settle()
	require.Equal(t, []string{rel}, rels(q), "and after the overlay read it")
	q2, _ := plan("needle_two", false, false)
	require.Empty(t, rels(q2), "the overlay rules it out for another needle")
	require.NoError(t, os.WriteFile(abs, []byte("needle_two\n"), 0o644))
	require.True(t, slices.Contains(rels(q2), rel), "an edited file is a candidate at once")
}

// TestDecodedFilesAreCandidates: a windows-1252 and a UTF-16 file holding
// the pattern only in their decoded text stay candidates (SPEC §4.1).
func TestDecodedFilesAreCandidates(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tr := newTree(t, r)
	old := time.Now().Add(-time.Hour)
	latin, _ := textenc.Windows1252.Encode("une crème brûlée\r\n")
	wide, _ := textenc.UTF16LE.Encode("une crème brûlée\r\n")
	for rel, data := range map[string][]byte{"enc/latin.txt": latin, "enc/wide.txt": append([]byte{0xff, 0xfe}, wide...)} {
		abs := filepath.Join(tr.root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		require.NoError(t, os.WriteFile(abs, data, 0o644))
		require.NoError(t, os.Chtimes(abs, old, old))
	}
	mgr := Open(Options{DataDir: t.TempDir(), Root: tr.root, CPUPercent: 100, Logf: t.Logf})
	defer mgr.Close()
	waitReady(t, mgr, tr)
	q, err := plan("crème brûlée", false, false)
	require.NoError(t, err)
	c, ok := mgr.Candidates(q, tr.files())
	require.True(t, ok)
	var rels []string
	for i := range c.Len() {
		rels = append(rels, c.At(i).Rel)
	}
	require.Contains(t, rels, "enc/latin.txt")
	require.Contains(t, rels, "enc/wide.txt")
}
