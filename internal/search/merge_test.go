package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/walk"
)

// TestMergerBatches: a search of a large tree's files is shared out in a
// few hundred batches (hand-offs to the merge), not one per
// limits.SearchBatchFiles files, and every file is claimed exactly once, in
// order.
func TestMergerBatches(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, batches int // files; most batches
	}{
		{"one file", 1, 1},
		{"a few", 10, 3},
		{"the Go tree", 14_000, 150},
		{"the Linux tree", 78_000, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMerger(tc.n, 2, &collector{q: &Query{Mode: Count, HeadLimit: 1 << 30}})
			next, batches := 0, 0
			for {
				b, lo, hi, ok := m.claim()
				if !ok {
					break
				}
				require.Equal(t, batches, b)
				require.Equal(t, next, lo)
				require.Greater(t, hi, lo)
				next, batches = hi, batches+1
				require.True(t, m.deliver(b, nil))
			}
			require.Equal(t, tc.n, next)
			require.LessOrEqual(t, batches, tc.batches)
		})
	}
}

// countingFiles is a listing that counts the files built (searched).
type countingFiles struct {
	walk.Files
	built *atomic.Int64
}

func (c countingFiles) At(i int) walk.File { c.built.Add(1); return c.Files.At(i) }

// TestGrepStopsEarly: a search whose result is full after its first file
// searches at most the merge's lookahead past it, also now that batches
// grow, and a search of every file merges them all in order.
func TestGrepStopsEarly(t *testing.T) {
	dir := t.TempDir()
	const n = 2000
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("f%04d.txt", i))
		require.NoError(t, os.WriteFile(p, []byte("needle\n"), 0o644))
		require.NoError(t, os.Chtimes(p, when, when)) // one time: the order is the paths'

	}
	m, err := Compile("needle", false, false)
	require.NoError(t, err)
	var built atomic.Int64
	list := func(ctx context.Context, opts walk.Options) (walk.Files, error) {
		opts.Open = nil // as a file table answers: every file is searched by the merge's workers
		files, err := walk.Walk(ctx, opts)
		return countingFiles{walk.FileList(files), &built}, err
	}
	id := filepath.Base // short: the whole result fits the budget

	q := &Query{Mode: FilesWithMatches, Matcher: m, HeadLimit: 1, List: list}
	res, err := grepIn(q, dir, dir, id, nil)
	require.NoError(t, err)
	require.Equal(t, 1, res.Files.Count)
	require.True(t, res.Files.Truncated)
	require.LessOrEqual(t, built.Load(), int64(64)) // 2 cores' window is 4 batches of 4

	built.Store(0)
	q = &Query{Mode: Count, Matcher: m, HeadLimit: n, List: list}
	res, err = grepIn(q, dir, dir, id, nil)
	require.NoError(t, err)
	require.Equal(t, int64(n), built.Load())
	require.Len(t, res.Counts.Counts, n)
	for i, e := range res.Counts.Counts {
		require.Equal(t, fmt.Sprintf("f%04d.txt", i), e.Path) // same mtime: path order
	}
}
