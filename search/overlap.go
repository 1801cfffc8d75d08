package search

import (
	"context"
	"runtime"
	"sync"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// overlap searches files while the walk that finds them still runs, in the
// order the walk finds them; the ordered merge then takes each file's result
// from it instead of searching the file again. It serves count and
// filesWithMatches searches, whose per-file results are small.
type overlap struct {
	q    *Query
	ch   chan walk.File
	quit chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	done map[string]overlapResult // by Abs; read without mu once stop returned
}

// overlapResult is a file's result with the identity of the version searched.
type overlapResult struct {
	size, mtime int64
	r           fileResult
}

// startOverlap starts one searcher per core.
func startOverlap(ctx context.Context, q *Query) *overlap {
	o := &overlap{q: q, ch: make(chan walk.File, limits.SearchOverlapQueueFiles), quit: make(chan struct{}), done: map[string]overlapResult{}}
	for range runtime.NumCPU() {
		o.wg.Add(1)
		go o.work(ctx)
	}
	return o
}

// found is walk.Options.Found: it queues f, or leaves it to the ordered
// search when the queue is full.
func (o *overlap) found(f walk.File) {
	select {
	case o.ch <- f:
	default:
	}
}

func (o *overlap) work(ctx context.Context) {
	defer o.wg.Done()
	g := &worker{q: o.q, maxMatches: o.q.Offset + o.q.HeadLimit + 1}
	for {
		select {
		case <-o.quit:
			return
		case <-ctx.Done():
			return
		case f := <-o.ch:
			r := g.file(ctx, f)
			if ctx.Err() != nil {
				return // a cancelled search's result is empty, not true
			}
			o.mu.Lock()
			o.done[f.Abs] = overlapResult{size: f.Size, mtime: f.ModTime, r: r}
			o.mu.Unlock()
		}
	}
}

// stop ends the searchers; results kept so far stay available.
func (o *overlap) stop() {
	close(o.quit)
	o.wg.Wait()
}

// result returns f's result when the same version of f was searched.
func (o *overlap) result(f walk.File) (fileResult, bool) {
	if o == nil {
		return fileResult{}, false
	}
	d, ok := o.done[f.Abs]
	if !ok || d.size != f.Size || d.mtime != f.ModTime {
		return fileResult{}, false
	}
	return d.r, true
}
