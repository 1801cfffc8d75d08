package search

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/toolrpc/toolrpc/internal/walk"
)

// overlap searches files while the walk that finds them still runs: the
// walk's goroutines search each file as they find it, so the search spreads
// over every core the walk uses and never waits for the walk's end. The
// ordered merge then takes each file's result from it instead of searching
// the file again. It serves searches in every output mode: a file's result
// does not depend on where it falls in the order.
//
// The walk's order is not the result's (newest first), so which files the
// result needs is known only when the walk ends. Once the files searched
// hold more than offset+headLimit entries (matching lines of a content
// search, else files with a match), more than any result shows, overlap
// stops searching: the ordered merge searches what it still needs. So the
// results it holds stay bounded as the result is.
//
// What was searched is kept as a list, not a map by path: once the walk
// ends, the list is sorted as the listing is (newest first, ties by path)
// and the two are aligned in one pass, so a file costs an append and a
// comparison instead of a hashed insert and lookup of its path.
type overlap struct {
	ctx     context.Context
	q       *Query
	workers sync.Pool // *worker, each with its own buffer
	entries atomic.Int64
	mu      sync.Mutex
	done    []overlapResult // in the order searched; sorted by align
	at      []int32         // by listing position (align): index into done, or -1
}

// overlapResult is a file's result with the identity of the version
// searched: small, as most files searched hold no match (r nil), so that
// the list grows cheaply.
type overlapResult struct {
	abs         string
	size, mtime int64
	r           *fileResult // nil: no match
	seq         int         // its place in the order searched
}

// startOverlap returns the overlap of a search of q.
func startOverlap(ctx context.Context, q *Query) *overlap {
	o := &overlap{ctx: ctx, q: q}
	o.workers.New = func() any { return &worker{q: q, maxMatches: q.Offset + q.HeadLimit + 1} }
	return o
}

// open is walk.Options.Open: it searches f (fd: open on it, or -1) on the
// walk's goroutine.
func (o *overlap) open(f walk.File, fd int) {
	if o.entries.Load() > int64(o.q.Offset+o.q.HeadLimit) {
		return
	}
	g := o.workers.Get().(*worker)
	r := g.fileAt(o.ctx, f, fd)
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
	d := overlapResult{abs: f.Abs, size: f.Size, mtime: f.ModTime}
	if r.count > 0 {
		d.r = &r
	}
	o.mu.Lock()
	d.seq = len(o.done)
	o.done = append(o.done, d)
	o.mu.Unlock()
}

// stop ends the overlap: found searches no more, and the results kept so
// far stay available. The walk has returned, so no found call is running.
func (o *overlap) stop() {
	o.entries.Store(int64(o.q.Offset+o.q.HeadLimit) + 1)
}

// align matches the files searched to files[from:] (the listing to merge,
// newest first, ties by path): at[i-from] is then the index in done of the
// search of files[i] as it is listed (same path, size and time), or -1.
// A file searched twice (a listing that walked again) keeps its last
// search.
func (o *overlap) align(files walk.Files, from int) {
	if o == nil {
		return
	}
	slices.SortFunc(o.done, func(a, b overlapResult) int {
		if c := cmp.Compare(b.mtime, a.mtime); c != 0 {
			return c
		}
		if c := strings.Compare(a.abs, b.abs); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	o.at = make([]int32, files.Len()-from)
	var buf []byte
	c := 0
	for i := range o.at {
		o.at[i] = -1
		size, mtime := files.Identity(from + i)
		for c < len(o.done) && o.done[c].mtime > mtime {
			c++
		}
		if c == len(o.done) || o.done[c].mtime != mtime {
			continue
		}
		buf = files.AppendAbs(buf[:0], from+i)
		abs := unsafe.String(unsafe.SliceData(buf), len(buf)) // not kept past this turn
		for c < len(o.done) && o.done[c].mtime == mtime && o.done[c].abs < abs {
			c++
		}
		k := c
		for c < len(o.done) && o.done[c].mtime == mtime && o.done[c].abs == abs {
			k = c // the last of its searches
			c++
		}
		if k < len(o.done) && o.done[k].mtime == mtime && o.done[k].abs == abs && o.done[k].size == size {
			o.at[i] = int32(k)
		}
	}
}

// result returns the result of the file at listing position pos (from
// included), its abs and pos set, when align found its version searched:
// the listing's File need not be built.
func (o *overlap) result(pos, from int) (fileResult, bool) {
	if o == nil {
		return fileResult{}, false
	}
	k := o.at[pos-from]
	if k < 0 {
		return fileResult{}, false
	}
	var r fileResult
	if d := o.done[k]; d.r != nil {
		r = *d.r
	}
	r.abs, r.pos = o.done[k].abs, pos
	return r, true
}
