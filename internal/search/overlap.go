package search

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/toolrpc/toolrpc/walk"
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
// What was searched is kept in a list, in the order searched, with a map
// from each path's string (its bytes' address, as the walk made it) to
// its last search: a listing that is the walk's own files (walk.Walk's,
// or a table's deferred walk) holds those very strings, so each listed
// file is found by an address, not by hashing its path; a listing that
// built its paths anew (a table's) is matched by path. The listing's
// order is known only at the walk's end; sorting the list as the listing
// is sorted (newest first, ties by path) and aligning the two, as was done
// before, cost tens of milliseconds on one core on a large tree, and a map
// by path 10% of a first grep's time (hashing and comparing long paths).
type overlap struct {
	ctx     context.Context
	q       *Query
	workers sync.Pool // *worker, each with its own buffer
	entries atomic.Int64
	mu      sync.Mutex
	done    results           // in the order searched
	last    map[uintptr]int32 // by the address of a path's bytes: index into done of its last search
	at      []int32           // by listing position (align): index into done, or -1
}

// overlapResult is a file's result with the identity of the version
// searched: small, as most files searched hold no match (r nil), so that
// the list grows cheaply.
type overlapResult struct {
	abs         string
	size, mtime int64
	r           *fileResult // nil: no match
}

// startOverlap returns the overlap of a search of q.
func startOverlap(ctx context.Context, q *Query) *overlap {
	o := &overlap{ctx: ctx, q: q, last: map[uintptr]int32{}}
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
		kept := r // only a match's result goes to the heap
		d.r = &kept
	}
	o.mu.Lock()
	o.last[addr(f.Abs)] = o.done.add(d)
	o.mu.Unlock()
}

// stop ends the overlap: found searches no more, and the results kept so
// far stay available. The walk has returned, so no found call is running.
func (o *overlap) stop() {
	o.entries.Store(int64(o.q.Offset+o.q.HeadLimit) + 1)
}

// addr is the address of s's bytes: the identity of a path string the
// walk made (o.done keeps it alive, so no other string has it meanwhile).
func addr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }

// align matches the files searched to files[from:] (the listing to merge):
// at[i-from] is then the index in done of the search of files[i] as it is
// listed (same path, size and time), or -1. A file searched twice (a
// listing that walked again) keeps its last search.
func (o *overlap) align(files walk.Files, from int) {
	if o == nil {
		return
	}
	o.at = make([]int32, files.Len()-from)
	own, _ := files.(walk.FileList)
	var byPath map[string]int32 // for a listing that made its paths anew
	var buf []byte
	for i := range o.at {
		o.at[i] = -1
		if o.done.n == 0 {
			continue
		}
		var k int32
		var ok bool
		if own != nil {
			// The walk's own files: a path it did not search (or one
			// another walk made) is searched by the merge.
			k, ok = o.last[addr(own[from+i].Abs)]
		} else {
			if byPath == nil {
				byPath = make(map[string]int32, o.done.n)
				for j := range int32(o.done.n) {
					byPath[o.done.at(j).abs] = j
				}
			}
			buf = files.AppendAbs(buf[:0], from+i)
			k, ok = byPath[string(buf)] // a lookup by a []byte key does not allocate
		}
		if !ok {
			continue
		}
		if size, mtime := files.Identity(from + i); o.done.at(k).size == size && o.done.at(k).mtime == mtime {
			o.at[i] = k
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
	d := o.done.at(k)
	if d.r != nil {
		r = *d.r
	}
	r.abs, r.pos = d.abs, pos
	return r, true
}

// results is an append-only list of overlapResults kept in pages, so that
// it grows without copying what it holds: one slice, grown by a quarter at
// a time past a few hundred entries, copied about five times its final
// size (13 MB of a first grep's 47 MB allocated on the Linux tree).
type results struct {
	pages [][]overlapResult
	n     int
}

// resultsPage is the entries of one page of results.
const resultsPage = 4096

// add appends d and returns its index.
func (l *results) add(d overlapResult) int32 {
	if l.n%resultsPage == 0 {
		l.pages = append(l.pages, make([]overlapResult, 0, resultsPage))
	}
	p := &l.pages[len(l.pages)-1]
	*p = append(*p, d)
	l.n++
	return int32(l.n - 1)
}

// at returns entry k.
func (l *results) at(k int32) *overlapResult { return &l.pages[k/resultsPage][k%resultsPage] }
