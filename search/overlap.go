package search

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/walk"
)

// overlap searches files while the walk that finds them still runs: the
// walk's goroutines search each file as they find it, so the search spreads
// over every core the walk uses and never waits for the walk's end. The
// ordered merge then takes each file's result from it instead of searching
// the file again. It serves searches that ask for many entries, in every
// output mode: a file's result does not depend on where it falls in the
// order.
//
// The walk's order is not the result's (newest first), so which files the
// result needs is known only when the walk ends. Once the files searched
// hold more than offset+headLimit entries (matching lines of a content
// search, else files with a match), more than any result shows, overlap
// stops searching: the ordered merge searches what it still needs. So the
// results it holds stay bounded as the result is.
type overlap struct {
	ctx     context.Context
	q       *Query
	workers sync.Pool // *worker, each with its own buffer
	entries atomic.Int64
	mu      sync.Mutex
	done    map[string]overlapResult // by Abs; read without mu once stop returned
}

// overlapResult is a file's result with the identity of the version
// searched: small, as most files searched hold no match (r nil), so that
// the map grows cheaply.
type overlapResult struct {
	size, mtime int64
	r           *fileResult // nil: no match
}

// startOverlap returns the overlap of a search of q.
func startOverlap(ctx context.Context, q *Query) *overlap {
	o := &overlap{ctx: ctx, q: q, done: map[string]overlapResult{}}
	o.workers.New = func() any { return &worker{q: q, maxMatches: q.Offset + q.HeadLimit + 1} }
	return o
}

// found is walk.Options.Found: it searches f on the walk's goroutine.
func (o *overlap) found(f walk.File) {
	if o.entries.Load() > int64(o.q.Offset+o.q.HeadLimit) {
		return
	}
	g := o.workers.Get().(*worker)
	r := g.file(o.ctx, f)
	o.workers.Put(g)
	if o.ctx.Err() != nil {
		return // a cancelled search's result is empty, not true
	}
	switch {
	case r.count == 0:
	case o.q.Mode == Content:
		o.entries.Add(int64(r.count))
	default:
		o.entries.Add(1)
	}
	d := overlapResult{size: f.Size, mtime: f.ModTime}
	if r.count > 0 {
		d.r = &r
	}
	o.mu.Lock()
	o.done[f.Abs] = d
	o.mu.Unlock()
}

// stop ends the overlap: found searches no more, and the results kept so
// far stay available. The walk has returned, so no found call is running.
func (o *overlap) stop() {
	o.entries.Store(int64(o.q.Offset+o.q.HeadLimit) + 1)
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
	if d.r == nil {
		return fileResult{}, true
	}
	return *d.r, true
}
