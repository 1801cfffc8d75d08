//go:build linux

package contentindex

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSettledBinaryIsNoCandidate: a file the build read as binary by
// content (SPEC §4: grep skips it), unchanged since, is no candidate; the
// same file rewritten as text holding the pattern is one again, and a
// binary file written within the racy window stays a candidate.
func TestSettledBinaryIsNoCandidate(t *testing.T) {
	tr := newTree(t, rand.New(rand.NewPCG(21, 22)))
	old := time.Now().Add(-time.Hour)
	put := func(rel, text string, mtime time.Time) {
		abs := filepath.Join(tr.root, rel)
		require.NoError(t, os.WriteFile(abs, []byte(text), 0o644))
		require.NoError(t, os.Chtimes(abs, mtime, mtime))
	}
	put("blob.dat", "needle_word\x00\x01\x02", old)
	put("text.txt", "a needle_word here\n", old)
	mgr := Open(Options{DataDir: t.TempDir(), Root: tr.root, CPUPercent: 100, Logf: t.Logf})
	defer mgr.Close()
	waitReady(t, mgr, tr)
	q, err := plan("needle_word", false, false)
	require.NoError(t, err)
	candidates := func() []string {
		cands, ok := mgr.Candidates(q, tr.files())
		require.True(t, ok)
		var rels []string
		for i := range cands.Len() {
			rels = append(rels, cands.At(i).Rel)
		}
		return rels
	}
	got := candidates()
	require.Contains(t, got, "text.txt")
	require.NotContains(t, got, "blob.dat", "binary by content as the index read it: grep skips it")

	put("blob.dat", "needle_word as text\n", old.Add(time.Minute))
	require.Contains(t, candidates(), "blob.dat", "rewritten as text: a candidate again")

	put("fresh.dat", "needle_word\x00", time.Now())
	mgr2 := Open(Options{DataDir: t.TempDir(), Root: tr.root, CPUPercent: 100, Logf: t.Logf})
	defer mgr2.Close()
	waitReady(t, mgr2, tr)
	cands, ok := mgr2.Candidates(q, tr.files())
	require.True(t, ok)
	var rels []string
	for i := range cands.Len() {
		rels = append(rels, cands.At(i).Rel)
	}
	require.Contains(t, rels, "fresh.dat", "binary when read within the racy window: the verdict is not trusted")
}
