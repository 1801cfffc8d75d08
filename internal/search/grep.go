package search

import (
	"cmp"
	"context"
	"regexp/syntax"
	"runtime"
	"sync"

	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
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

// Query is one validated grep: what to find, where, and how to show it.
type Query struct {
	// Start is the absolute path searched; ignore rules apply as walk
	// applies them below Boundary, the absolute root holding Start.
	Start, Boundary string
	// Display names a file (by its absolute path) in the result.
	Display func(abs string) string
	// Sources, when set, records every line a content result shows whole.
	Sources *sourceset.Set

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
	// ChunkBytes, when set, caps how much of a file is searched at once
	// (tests shorten it); 0 is limits.SearchChunkBytes. Either way a grep
	// with no context lines and no multiline pattern searches at most
	// limits.SearchLineChunkBytes at once.
	ChunkBytes int

	// List lists the files to search as walk.Walk does; nil is walk.Walk.
	// A resident file table (filetable.Set.Walk) answers without walking.
	List Lister
	// Filter, when set, hides files and directories from the listing on
	// top of the glob (e.g. paths a sandbox denies). A filtered grep never
	// continues a kept one: the kept one may have listed what this one hides.
	Filter ListFilter
	// Opened, when set, judges each file once it is open (its descriptor,
	// and its size as the walk saw it): false skips it, as unreadable (the
	// sandbox's judgement of what was opened, whatever its name, SPEC §14).
	Opened func(fd int, size int64) bool
	// Index, when set, narrows the listing to the files that can hold a
	// match below Boundary (a content index).
	Index Index
	// Resume, when set, keeps where count and filesWithMatches greps
	// stop, so the page that continues one starts there (see Resumes).
	Resume *Resumes
	// Overlay, when set, is text searched instead of its files (an
	// editor's unsaved buffers), listed first. A grep with an overlay
	// neither continues a page nor keeps one, and searches nothing while
	// it lists.
	Overlay Overlay
}

// Index is a content index as grep uses it (contentindex.Set is one).
type Index interface {
	// Narrow drops the files of root's listing that cannot hold a match of
	// re (the tree of a pattern size bytes long). It must keep, in order,
	// every file that holds one.
	Narrow(root string, re *syntax.Regexp, size int, files walk.Files) walk.Files
	// Narrows reports whether Narrow can drop files of root now (an index
	// is mapped and the pattern has something to look up): then the walk
	// does not search the files it finds, as the index would skip most of
	// them.
	Narrows(root string, re *syntax.Regexp, size int) bool
}

// MatchSpans is a listing (as Index.Narrow returns one) that knows, of
// some of its files, that each is text grep matches undecoded (a content
// index read it so) and the byte ranges outside which no line of it holds
// a match: the whole file, or parts. Count and filesWithMatches greps,
// which neither number lines nor tag the file, read only those ranges,
// without sniffing the file. Its files were narrowed to those likely to
// match, so a filesWithMatches grep reads
// limits.SearchLikelyFirstReadBytes of each one (or range) first.
type MatchSpans interface {
	// MatchSpans returns the ranges [start, end) of file i, ascending,
	// each from a line start to a line end or the file's end (an end
	// past it, such as math.MaxInt64, stands for it); nil when
	// the listing knows nothing of the file: it is read whole, and
	// sniffed.
	MatchSpans(i int) [][2]int64
}

// ListFilter hides entries of a listing, as walk.Options' Keep and Dir do.
type ListFilter interface {
	// Keep reports whether the file rel (named name) is listed.
	Keep(rel, name string) bool
	// Dir reports whether the directory rel is entered.
	Dir(rel string) bool
}

// chunkBytes is how much of a file q searches at once: whole lines suffice
// (limits.SearchLineChunkBytes) unless context lines or a multiline
// pattern need more around a match.
func (q *Query) chunkBytes() int {
	c := cmp.Or(q.ChunkBytes, limits.SearchChunkBytes)
	if !q.Matcher.multiline && q.Before == 0 && q.After == 0 {
		c = min(c, limits.SearchLineChunkBytes)
	}
	return c
}

// Lister lists files exactly as walk.Walk does (Keep must not retain its
// arguments). A listing that is Versioned lets a later page continue a
// grep (see Resumes).
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

// Grep walks q.Start, searches the files newest first and returns the
// bounded Result of q's mode. The error is only ever the context's.
//
// Directories the glob cannot reach are not entered. A listing that walks
// (no resident table answers it) searches files while the walk still runs,
// unless q.Index says it will narrow them; the results are merged in
// newest-first order all the same. With q.Resume set, a count or
// filesWithMatches grep that continues one that stopped starts where it
// stopped (see Resumes).
func Grep(ctx context.Context, query *Query) (Result, error) {
	q := *query
	q.ChunkBytes = query.chunkBytes()
	if q.Filter != nil || len(q.Overlay) > 0 {
		q.Resume = nil
	}
	ex := &walk.Excluded{}
	opts := walk.Options{Start: q.Start, Boundary: q.Boundary, Keep: GlobFilter(q.Glob), Dir: GlobDirs(q.Glob), Excluded: ex}
	if f := q.Filter; f != nil {
		keep, dir := opts.Keep, opts.Dir
		opts.Keep = func(rel, name string) bool { return f.Keep(rel, name) && (keep == nil || keep(rel, name)) }
		opts.Dir = func(rel string) bool { return f.Dir(rel) && (dir == nil || dir(rel)) }
	}
	key, resumable := q.keyOf()
	resuming := resumable && q.Resume.has(key, q.Offset)
	var o *overlap
	if !resuming && len(q.Overlay) == 0 && (q.Index == nil || !q.Index.Narrows(q.Boundary, q.Matcher.Syntax(), q.Matcher.size)) {
		o = startOverlap(ctx, &q)
		opts.Open = o.open
	}
	files, err := q.List.list(ctx, opts)
	if o != nil {
		o.stop()
	}
	if err != nil {
		return Result{}, err
	}
	var front []walk.File
	if len(q.Overlay) > 0 {
		front, files = q.Overlay.split(ctx, files, opts, q.Filter)
	}
	ignored := func() string { return IgnoredNotice(ctx, ex, q.Display, "files") }
	c := &collector{q: &q, display: q.Display, sources: q.Sources, ignored: ignored}
	version, from := versionOf(files), 0
	var r *resume
	if resumable {
		r = q.Resume.take(key, version, q.Offset)
	}
	if r != nil && resuming {
		files, from, c.skipped, c.next = r.files, r.next, q.Offset, r.next
	} else if q.Index != nil {
		files = q.Index.Narrow(q.Boundary, q.Matcher.Syntax(), q.Matcher.size, files)
	}
	if len(q.Overlay) > 0 {
		files = prepend(front, files)
	}
	res, err := run(ctx, &q, files, from, o, c)
	if err == nil && resumable && c.more && c.skipped == q.Offset {
		q.Resume.keep(&resume{key: key, version: version, files: files, next: c.next, emitted: q.Offset + c.kept})
	}
	return res, err
}

// run searches files[from:] in order with one worker per core (the
// calling goroutine one of them), merging results in order, and stops as
// soon as the collector is full. Results o already holds are taken from it.
// See merger for how the files are shared out.
func run(ctx context.Context, q *Query, files walk.Files, from int, o *overlap, c *collector) (Result, error) {
	if files.Len() == from {
		return c.result(), nil
	}
	o.align(files, from)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newMerger(files.Len()-from, runtime.NumCPU(), c)
	stop := context.AfterFunc(wctx, m.halt)
	defer stop()
	var wg sync.WaitGroup
	for range m.workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.work(wctx, cancel, q, files, from, o)
		}()
	}
	m.work(wctx, cancel, q, files, from, o)
	wg.Wait()
	return c.finish(ctx)
}

// prepend returns front's files, then files'.
func prepend(front []walk.File, files walk.Files) walk.Files {
	all := make(walk.FileList, 0, len(front)+files.Len())
	all = append(all, front...)
	for i := range files.Len() {
		all = append(all, files.At(i))
	}
	return all
}
