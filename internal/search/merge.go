package search

import (
	"context"
	"sync"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// merger shares the files of one search out among its workers and merges
// their results in file order, without a goroutine of its own: the worker
// that delivers the batch the merge waits for merges it, and every batch
// after it that is ready, under mu. Hand-offs through channels woke a merge
// goroutine per batch (tens of thousands of futex calls and context
// switches on a large tree) and left the workers waiting for its turn.
//
// Workers claim batches of consecutive files in order. The first are
// limits.SearchBatchFiles files; each later one is limits.SearchBatchGrowth
// of the files before it, up to limits.SearchBatchMaxFiles, so a search
// that stops early (its result full after a few files) wastes little and
// one that reads a whole tree claims a few hundred batches, not one per
// four files. A worker claims no batch more than limits.SearchLookahead
// batches per worker ahead of the merge: past the stop point at most that
// much work is wasted, and a content search holds at most that many
// batches' lines unmerged.
type merger struct {
	n       int // files to search
	workers int
	window  int // batches a worker may claim ahead of the merge
	c       *collector

	mu      sync.Mutex
	cond    sync.Cond // signalled when the merge advances or the search stops
	claimed int       // batches claimed
	next    int       // files claimed: the start of batch claimed
	merged  int       // batches merged
	ready   map[int][]fileResult
	stopped bool
}

// newMerger returns the merger of a search of n files by up to workers
// workers into c.
func newMerger(n, workers int, c *collector) *merger {
	m := &merger{n: n, c: c, ready: map[int][]fileResult{}}
	m.workers = max(1, min(workers, (n+limits.SearchBatchFiles-1)/limits.SearchBatchFiles))
	m.window = m.workers * limits.SearchLookahead
	m.cond.L = &m.mu
	return m
}

// batchSize is the size of the batch that starts after the first done
// files.
func batchSize(done int) int {
	return min(max(limits.SearchBatchFiles, done/limits.SearchBatchGrowth), limits.SearchBatchMaxFiles)
}

// claim returns the next batch (its number and its files [lo, hi) counted
// from the search's first file), waiting while the merge is a window behind;
// false once the search stopped or every file is claimed.
func (m *merger) claim() (b, lo, hi int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for !m.stopped && m.next < m.n && m.claimed-m.merged >= m.window {
		m.cond.Wait()
	}
	if m.stopped || m.next >= m.n {
		return 0, 0, 0, false
	}
	b, lo = m.claimed, m.next
	hi = min(m.n, lo+batchSize(lo))
	m.claimed, m.next = b+1, hi
	return b, lo, hi, true
}

// deliver hands batch b's results (the files with a match, in order) to the
// merge, and merges what is ready in order; it reports false once the
// collector is full.
func (m *merger) deliver(b int, rs []fileResult) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return false
	}
	m.ready[b] = rs
	advanced := false
	for {
		rs, ok := m.ready[m.merged]
		if !ok {
			break
		}
		delete(m.ready, m.merged)
		m.merged++
		advanced = true
		for _, r := range rs {
			if !m.c.add(r.abs, r) {
				m.stopped = true
				m.cond.Broadcast()
				return false
			}
		}
	}
	if advanced {
		m.cond.Broadcast()
	}
	return true
}

// halt stops the search: no batch is claimed or merged after it.
func (m *merger) halt() {
	m.mu.Lock()
	m.stopped = true
	m.mu.Unlock()
	m.cond.Broadcast()
}

// work claims, searches and delivers batches until none is left or the
// search stops; cancel ends the searches still running once the collector
// is full.
func (m *merger) work(ctx context.Context, cancel context.CancelFunc, q *Query, files walk.Files, from int, o *overlap) {
	g := &worker{q: q, maxMatches: q.Offset + q.HeadLimit + 1}
	spans, _ := files.(MatchSpans)
	if spans != nil && q.Mode == FilesWithMatches {
		g.firstRead = limits.SearchLikelyFirstReadBytes
	}
	for {
		b, lo, hi, ok := m.claim()
		if !ok {
			return
		}
		var rs []fileResult
		for pos := from + lo; pos < from+hi; pos++ {
			r, ok := o.result(pos, from)
			if !ok {
				f := files.At(pos)
				if spans != nil {
					r = g.fileSpans(ctx, f, spans.MatchSpans(pos))
				} else {
					r = g.file(ctx, f)
				}
				r.abs, r.pos = f.Abs, pos
			}
			if r.count > 0 {
				rs = append(rs, r)
			}
		}
		if ctx.Err() != nil {
			return
		}
		if !m.deliver(b, rs) {
			cancel()
			return
		}
	}
}
