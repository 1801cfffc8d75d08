package search

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/sourceset"
	"github.com/toolrpc/toolrpc/walk"
	"github.com/toolrpc/toolrpc/wire"
)

// Mode is what a grep reports.
type Mode int

// The three output modes of tools/grep (SPEC §5).
const (
	FilesWithMatches Mode = iota
	Content
	Count
)

// Query is one validated grep.
type Query struct {
	// Mode selects the result shape.
	Mode Mode
	// Matcher finds the matching lines.
	Matcher *Matcher
	// Glob filters the files walked (see GlobFilter); "" keeps all.
	Glob string
	// Before and After are the context lines around each match (Content).
	Before, After int
	// HeadLimit is the most entries kept; Offset entries are skipped first.
	HeadLimit, Offset int
	// ChunkBytes is how much of a file is searched at once.
	ChunkBytes int
	// Narrow, when set, drops listed files that cannot hold a match (a
	// content index). It must keep, in order, every file that holds one.
	Narrow func(walk.Files) walk.Files
	// Narrows, when set, reports whether Narrow can drop files now (an
	// index is mapped and the pattern has something to look up): then the
	// walk does not search the files it finds, as the index would skip
	// most of them.
	Narrows func() bool
	// List lists the files to search as walk.Walk does; nil is walk.Walk.
	// A resident file table (filetable.Set.Walk) answers without walking.
	List Lister
	// Resume, when set, keeps where count and filesWithMatches greps
	// stop, so the page that continues one starts there (see Resumes).
	Resume *Resumes
}

// Lister lists files exactly as walk.Walk does (Keep must not retain its
// arguments).
type Lister func(ctx context.Context, opts walk.Options) (walk.Files, error)

// list lists with l, or walk.Walk when l is nil.
func (l Lister) list(ctx context.Context, opts walk.Options) (walk.Files, error) {
	if l == nil {
		files, err := walk.Walk(ctx, opts)
		return walk.FileList(files), err
	}
	return l(ctx, opts)
}

// The result shapes are the wire types of tools/grep.
type (
	// Match is one entry of a content result.
	Match = wire.GrepMatch
	// ContentResult is the result of a Content grep.
	ContentResult = wire.GrepContentResult
	// FilesResult is the result of a FilesWithMatches grep.
	FilesResult = wire.GrepFilesResult
	// CountEntry is one file of a count result.
	CountEntry = wire.GrepCountEntry
	// CountResult is the result of a Count grep.
	CountResult = wire.GrepCountResult
	// Result is the result of a grep: exactly one of its fields is set, the
	// one of the query's Mode.
	Result = wire.GrepResult
)

// Grep walks start (ignore rules as walk applies them below boundary),
// searches the files newest first and returns the bounded Result of q's mode. display names a file in
// the result; every line a content result shows whole joins sources. The
// error is only ever the context's.
//
// Directories the glob cannot reach are not entered. A listing that walks
// (no resident table answers it) searches files while the walk still runs,
// unless q.Narrows says an index will narrow them; the results are merged
// in newest-first order all the same. With q.Resume set, a count
// or filesWithMatches grep that continues one that stopped starts where it
// stopped (see Resumes).
func Grep(ctx context.Context, q *Query, start, boundary string, display func(abs string) string, sources *sourceset.Set) (Result, error) {
	ex := &walk.Excluded{}
	opts := walk.Options{Start: start, Boundary: boundary, Keep: GlobFilter(q.Glob), Dir: GlobDirs(q.Glob), Excluded: ex}
	key, resumable := q.keyOf(start, boundary)
	resuming := resumable && q.Resume.has(key, q.Offset)
	var o *overlap
	if !resuming && (q.Narrows == nil || !q.Narrows()) {
		o = startOverlap(ctx, q)
		opts.Open = o.open
	}
	files, err := q.List.list(ctx, opts)
	if o != nil {
		o.stop()
	}
	if err != nil {
		return Result{}, err
	}
	ignored := func() string { return IgnoredNotice(ctx, ex, display, "files") }
	c := &collector{q: q, display: display, sources: sources, ignored: ignored}
	version, from := versionOf(files), 0
	var r *resume
	if resumable {
		r = q.Resume.take(key, version, q.Offset)
	}
	if r != nil && resuming {
		files, from, c.skipped, c.next = r.files, r.next, q.Offset, r.next
	} else if q.Narrow != nil {
		files = q.Narrow(files)
	}
	res, err := run(ctx, q, files, from, o, c)
	if err == nil && resumable && c.more && c.skipped == q.Offset {
		q.Resume.keep(&resume{key: key, version: version, files: files, next: c.next, emitted: q.Offset + c.kept})
	}
	return res, err
}

// run searches files[from:] in order with one worker per core, merging
// results in order, and stops as soon as the collector is full. Workers claim batches of
// limits.SearchBatchFiles consecutive files and may run
// limits.SearchLookahead files per worker ahead of the merge.
// Results o already holds are taken from it.
func run(ctx context.Context, q *Query, files walk.Files, from int, o *overlap, c *collector) (Result, error) {
	if files.Len() == from {
		return c.result(), nil
	}
	o.align(files, from)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	const batch = limits.SearchBatchFiles
	nb := (files.Len() - from + batch - 1) / batch
	workers := min(runtime.NumCPU(), nb)
	tokens := make(chan struct{}, max(1, workers*limits.SearchLookahead/batch))
	for range cap(tokens) {
		tokens <- struct{}{}
	}
	slots := make([]chan []fileResult, nb)
	for i := range slots {
		slots[i] = make(chan []fileResult, 1)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := &worker{q: q, maxMatches: q.Offset + q.HeadLimit + 1}
			for {
				select {
				case <-tokens:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= nb {
					return
				}
				lo := from + i*batch
				rs := make([]fileResult, min(lo+batch, files.Len())-lo)
				for k := range rs {
					if r, ok := o.result(lo+k, from); ok {
						rs[k] = r
						continue
					}
					f := files.At(lo + k)
					rs[k] = g.file(ctx, f)
					rs[k].abs, rs[k].pos = f.Abs, lo+k
				}
				slots[i] <- rs
			}
		}()
	}
	defer func() {
		cancel()
		wg.Wait()
	}()
	return merge(ctx, slots, tokens, c)
}

// merge hands the batches' results to c in file order until c is full.
func merge(ctx context.Context, slots []chan []fileResult, tokens chan struct{}, c *collector) (Result, error) {
	for i := range slots {
		var rs []fileResult
		select {
		case rs = <-slots[i]:
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
		tokens <- struct{}{}
		for _, r := range rs {
			if !c.add(r.abs, r) {
				return c.finish(ctx)
			}
		}
	}
	return c.finish(ctx)
}
