package contentindex

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// smallClassifyBatches makes every listing of the tests span several
// batches, so it is classified on every core.
func smallClassifyBatches(t *testing.T) {
	old := classifyBatch
	classifyBatch = 3
	t.Cleanup(func() { classifyBatch = old })
}

// TestClassifyAllMatchesClassify requires the codes classifyAll gives a
// listing, on every core, to be the codes of classify, one file at a time,
// for files held, changed, added and skipped by name.
func TestClassifyAllMatchesClassify(t *testing.T) {
	smallClassifyBatches(t)
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, seed))
		tr := newTree(t, r)
		for range 20 {
			tr.write(tr.randomName(), false)
		}
		mgr := Open(Options{DataDir: t.TempDir(), Root: tr.root, CPUPercent: 100, Logf: t.Logf})
		waitReady(t, mgr, tr)
		tr.mutate()
		tr.mutate()
		files := tr.files()
		mgr.mu.RLock()
		got := mgr.classifyAll(files)
		want := make([]int32, files.Len())
		var buf []byte
		for i := range want {
			buf = files.AppendAbs(buf[:0], i)
			size, mtime := files.Identity(i)
			want[i] = mgr.classify(unsafe.String(unsafe.SliceData(buf), len(buf)), size, mtime)
		}
		mgr.mu.RUnlock()
		require.Equal(t, want, got, "seed %d, %d files", seed, files.Len())
		mgr.Close()
	}
}

// TestDifferentialParallelClassify is TestDifferentialRandomTrees with
// listings classified in batches of a few files on every core.
func TestDifferentialParallelClassify(t *testing.T) {
	smallClassifyBatches(t)
	narrowed := 0
	for seed := range uint64(8) {
		narrowed += runDifferential(t, 1000+seed, 12)
	}
	require.Greater(t, narrowed, 8, "the index narrowed some searches")
}
