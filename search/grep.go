package search

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/sourceset"
	"github.com/toolrpc/toolrpc/walk"
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
	// Narrow, when set, drops walked files that cannot hold a match (a
	// content index). It must keep, in order, every file that holds one.
	Narrow func([]walk.File) []walk.File
}

// Match is one entry of a content result.
type Match struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Context bool   `json:"context,omitempty"`
}

// ContentResult is the result of a Content grep.
type ContentResult struct {
	Matches   []Match           `json:"matches"`
	Tags      map[string]string `json:"tags"`
	Count     int               `json:"count"`
	Files     int               `json:"files"`
	Truncated bool              `json:"truncated"`
	Notice    string            `json:"notice,omitempty"`
}

// FilesResult is the result of a FilesWithMatches grep.
type FilesResult struct {
	Files     []string `json:"files"`
	Count     int      `json:"count"`
	Truncated bool     `json:"truncated"`
	Notice    string   `json:"notice,omitempty"`
}

// CountEntry is one file of a count result.
type CountEntry struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// CountResult is the result of a Count grep.
type CountResult struct {
	Counts    []CountEntry `json:"counts"`
	Count     int          `json:"count"`
	Truncated bool         `json:"truncated"`
	Notice    string       `json:"notice,omitempty"`
}

// Grep walks start (ignore rules as walk applies them below boundary),
// searches the files newest first and returns the bounded result of q's mode:
// a ContentResult, FilesResult or CountResult. display names a file in
// the result; every line a content result shows whole joins sources. The
// error is only ever the context's.
func Grep(ctx context.Context, q *Query, start, boundary string, display func(abs string) string, sources *sourceset.Set) (any, error) {
	ex := &walk.Excluded{}
	files, err := walk.Walk(ctx, walk.Options{Start: start, Boundary: boundary, Keep: GlobFilter(q.Glob), Excluded: ex})
	if err != nil {
		return nil, err
	}
	ignored := func() string { return IgnoredNotice(ctx, ex, display, "files") }
	if q.Narrow != nil {
		files = q.Narrow(files)
	}
	return run(ctx, q, files, &collector{q: q, display: display, sources: sources, ignored: ignored})
}

// run searches files in order with one worker per core, merging results in
// order, and stops as soon as the collector is full. Workers claim batches of
// limits.SearchBatchFiles consecutive files and may run
// limits.SearchLookahead files per worker ahead of the merge.
func run(ctx context.Context, q *Query, files []walk.File, c *collector) (any, error) {
	if len(files) == 0 {
		return c.result(), nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	const batch = limits.SearchBatchFiles
	nb := (len(files) + batch - 1) / batch
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
				lo := i * batch
				rs := make([]fileResult, min(lo+batch, len(files))-lo)
				for k := range rs {
					rs[k] = g.file(ctx, files[lo+k])
				}
				slots[i] <- rs
			}
		}()
	}
	defer func() {
		cancel()
		wg.Wait()
	}()
	return merge(ctx, files, slots, tokens, c)
}

// merge hands the batches' results to c in file order until c is full.
func merge(ctx context.Context, files []walk.File, slots []chan []fileResult, tokens chan struct{}, c *collector) (any, error) {
	const batch = limits.SearchBatchFiles
	for i := range slots {
		var rs []fileResult
		select {
		case rs = <-slots[i]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		tokens <- struct{}{}
		for k, r := range rs {
			if !c.add(files[i*batch+k].Abs, r) {
				return c.finish(ctx)
			}
		}
	}
	return c.finish(ctx)
}
