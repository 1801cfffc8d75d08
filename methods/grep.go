package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/search"
	"github.com/toolrpc/toolrpc/sourceset"
	"github.com/toolrpc/toolrpc/walk"
)

var grepChunkBytes = limits.SearchChunkBytes // tests shorten it

func init() {
	register(Method{
		Name: "tools/grep",
		Tool: true,
		Description: fmt.Sprintf("Search file contents with an RE2 regular expression, newest files first "+
			"(modification time, then path; lines in file order). Honours .gitignore, .ignore and "+
			".git/info/exclude; an explicit path reaches ignored trees. outputMode filesWithMatches "+
			"(default), content (matching lines with optional before/after/context lines) or count. "+
			"Returns at most %d entries by default (headLimit), and at most %d KB / %d lines per result; "+
			"page with offset. Lines longer than %d characters are clipped. Binary files are skipped. "+
			"A glob may hold at most %d {…} groups.",
			limits.GrepDefaultHeadLimit, limits.SearchBudgetBytes/limits.KB, limits.SearchBudgetLines, limits.MaxLineChars,
			limits.GlobMaxBraceGroups),
		InputSchema: json.RawMessage(`{"type":"object","required":["pattern"],"properties":{` +
			`"pattern":{"type":"string","description":"RE2 regular expression"},` +
			`"path":{"type":"string","description":"file or directory to search (default: the first workspace root)"},` +
			`"glob":{"type":"string","description":"doublestar filter; without / it matches the base name"},` +
			`"outputMode":{"type":"string","enum":["content","filesWithMatches","count","files_with_matches","files-with-matches"]},` +
			`"caseInsensitive":{"type":"boolean"},"multiline":{"type":"boolean"},` +
			`"before":{"type":"integer","minimum":0},"after":{"type":"integer","minimum":0},"context":{"type":"integer","minimum":0},` +
			`"headLimit":{"type":"integer","minimum":1},"offset":{"type":"integer","minimum":0}}}`),
		Call: grepCall,
	})
}

type grepParams struct {
	Pattern         *string `json:"pattern"`
	Path            string  `json:"path"`
	Glob            string  `json:"glob"`
	OutputMode      string  `json:"outputMode"`
	CaseInsensitive bool    `json:"caseInsensitive"`
	Multiline       bool    `json:"multiline"`
	Before          *int64  `json:"before"`
	After           *int64  `json:"after"`
	Context         *int64  `json:"context"`
	HeadLimit       *int64  `json:"headLimit"`
	Offset          *int64  `json:"offset"`
}

// grepMode is a normalized outputMode.
type grepMode int

const (
	grepFiles grepMode = iota
	grepContent
	grepCount
)

// grepMatch is one entry of a content result.
type grepMatch struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Context bool   `json:"context,omitempty"`
}

type grepContentResult struct {
	Matches   []grepMatch       `json:"matches"`
	Tags      map[string]string `json:"tags"`
	Count     int               `json:"count"`
	Files     int               `json:"files"`
	Truncated bool              `json:"truncated"`
	Notice    string            `json:"notice,omitempty"`
}

type grepFilesResult struct {
	Files     []string `json:"files"`
	Count     int      `json:"count"`
	Truncated bool     `json:"truncated"`
	Notice    string   `json:"notice,omitempty"`
}

type grepCountEntry struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

type grepCountResult struct {
	Counts    []grepCountEntry `json:"counts"`
	Count     int              `json:"count"`
	Truncated bool             `json:"truncated"`
	Notice    string           `json:"notice,omitempty"`
}

// grepRequest is a validated grep call.
type grepRequest struct {
	mode          grepMode
	m             *search.Matcher
	glob          string
	before, after int
	headLimit     int
	offset        int
	chunkBytes    int // how much of a file is searched at once
}

func grepDecode(call *rpc.Call) (grepParams, *grepRequest, error) {
	var p grepParams
	if err := call.Decode(&p); err != nil {
		return p, nil, err
	}
	if p.Pattern == nil {
		return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: pattern is required")
	}
	r := &grepRequest{headLimit: limits.GrepDefaultHeadLimit}
	switch p.OutputMode {
	case "", "filesWithMatches", "files_with_matches", "files-with-matches":
		r.mode = grepFiles
	case "content":
		r.mode = grepContent
	case "count":
		r.mode = grepCount
	default:
		return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: outputMode %q is not one of content, filesWithMatches, count", p.OutputMode)
	}
	if p.HeadLimit != nil {
		if *p.HeadLimit < 1 {
			return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: headLimit %d is out of range: it must be at least 1", *p.HeadLimit)
		}
		r.headLimit = int(min(*p.HeadLimit, int64(1)<<31))
	}
	if p.Offset != nil {
		if *p.Offset < 0 {
			return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: offset %d is out of range: it must be at least 0", *p.Offset)
		}
		r.offset = int(min(*p.Offset, int64(1)<<31))
	}
	for _, c := range []struct {
		name string
		v    *int64
		dst  []*int
	}{{"context", p.Context, []*int{&r.before, &r.after}}, {"before", p.Before, []*int{&r.before}}, {"after", p.After, []*int{&r.after}}} {
		if c.v == nil {
			continue
		}
		if *c.v < 0 {
			return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: %s %d is out of range: it must be at least 0", c.name, *c.v)
		}
		for _, d := range c.dst {
			*d = int(min(*c.v, limits.SearchBudgetLines))
		}
	}
	if p.Glob != "" {
		if err := checkGlob("grep", "glob", p.Glob); err != nil {
			return p, nil, err
		}
	}
	r.glob = p.Glob
	m, err := search.Compile(*p.Pattern, p.CaseInsensitive, p.Multiline)
	if err != nil {
		return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: %v", err)
	}
	r.m = m
	r.chunkBytes = grepChunkBytes
	if !p.Multiline && r.before == 0 && r.after == 0 {
		r.chunkBytes = min(grepChunkBytes, limits.SearchLineChunkBytes)
	}
	return p, r, nil
}

// searchResolve resolves the path argument of grep or glob (default: the
// first workspace root), mapping failures to the wire errors of SPEC §10.
func searchResolve(s *Session, tool, p string) (walk.Path, error) {
	if p == "" {
		p = s.Roots.First()
	}
	rp, err := resolvePath(s, tool, p)
	switch {
	case err != nil:
		return rp, err
	case !rp.Exists:
		return rp, rpc.Errorf(rpc.NotFound, "%s %s: no such file or directory", tool, p)
	}
	return rp, nil
}

// searchCancelled turns a cancelled context into the CANCELLED error.
func searchCancelled(tool string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return rpc.Errorf(rpc.Cancelled, "%s: cancelled", tool)
	}
	return err
}

// grepKeep returns the walk filter of a glob: without "/" it matches the
// base name, else the path relative to the searched directory.
func grepKeep(glob string) func(rel, name string) bool {
	if glob == "" {
		return nil
	}
	if !strings.Contains(glob, "/") {
		return func(rel, name string) bool { ok, _ := doublestar.Match(glob, name); return ok }
	}
	return func(rel, name string) bool { ok, _ := doublestar.Match(glob, rel); return ok }
}

func grepCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	p, req, err := grepDecode(call)
	if err != nil {
		return nil, err
	}
	rp, err := searchResolve(s, "grep", p.Path)
	if err != nil {
		return nil, err
	}
	files, err := walk.Walk(ctx, walk.Options{Start: rp.Abs, Boundary: rp.RootDir, Keep: grepKeep(req.glob)})
	if err != nil {
		return nil, searchCancelled("grep", err)
	}
	res, err := grepRun(ctx, s, req, files)
	if err != nil {
		return nil, searchCancelled("grep", err)
	}
	return res, nil
}

// grepLine is one line a file search found: a match or a context line.
type grepLine struct {
	n       int
	text    string
	context bool
	after   bool // a context line following a match (else one preceding a match)
	whole   bool // neither clipped nor lossy: it may join the edit source set
}

// grepFileResult is what a worker found in one file.
type grepFileResult struct {
	lines []grepLine // content mode
	count int        // matching lines (all of them in count mode, ≥1 = has a match)
	tag   string     // content mode, when lines is not empty
}

// grepCollector merges file results in order and stops when the result is full.
type grepCollector struct {
	s    *Session
	req  *grepRequest
	full bool // headLimit or budget reached; looking for one more entry
	more bool // an entry past the stop point exists
	why  string

	bytes, nlines int
	skipped       int // entries skipped for offset
	kept          int // counted entries kept (matching lines, files or count rows)
	clipped       int

	content grepContentResult
	files   grepFilesResult
	counts  grepCountResult
}

// fits charges one entry of b bytes against the budget, or reports that it
// does not fit.
func (c *grepCollector) fits(b int) bool {
	if c.bytes+b > limits.SearchBudgetBytes || c.nlines+1 > limits.SearchBudgetLines {
		return false
	}
	c.bytes += b
	c.nlines++
	return true
}

// stop marks the result full for the given reason.
func (c *grepCollector) stop(why string) { c.full, c.why = true, why }

// add merges one file's result; it returns false once nothing more is needed.
func (c *grepCollector) add(f walk.File, r grepFileResult) bool {
	if r.count == 0 {
		return true
	}
	display := c.s.Roots.DisplayOf(f.Abs)
	if c.req.mode != grepContent {
		if c.full {
			c.more = true
			return false
		}
		if c.skipped < c.req.offset {
			c.skipped++
			return true
		}
		cost := len(display) + limits.SearchEntryOverheadBytes
		if !c.fits(cost) {
			c.stop("budget")
			c.more = true
			return false
		}
		if c.req.mode == grepFiles {
			c.files.Files = append(c.files.Files, display)
			c.files.Count++
		} else {
			c.counts.Counts = append(c.counts.Counts, grepCountEntry{Path: display, Count: r.count})
			c.counts.Count += r.count
		}
		c.kept++
		if c.kept >= c.req.headLimit {
			c.stop("headLimit")
		}
		return true
	}
	var pending []grepLine // context lines waiting for the next kept match
	lastKept := false      // the previous match of this file was kept: after-context follows it
	shown := false
	var runFrom, runTo int // the current run of whole lines for the source set
	flush := func() {
		if runTo >= runFrom && runFrom > 0 {
			c.s.Sources.Add(f.Abs, r.tag, runFrom, runTo)
		}
		runFrom, runTo = 0, -1
	}
	emit := func(l grepLine) bool {
		cost := len(display) + len(l.text) + limits.SearchEntryOverheadBytes
		if !shown {
			cost += len(display) + len(r.tag) + limits.SearchEntryOverheadBytes
		}
		if !c.fits(cost) {
			return false
		}
		if !shown {
			if c.content.Tags == nil {
				c.content.Tags = map[string]string{}
			}
			c.content.Tags[display] = r.tag
			c.content.Files++
			shown = true
		}
		c.content.Matches = append(c.content.Matches, grepMatch{Path: display, Line: l.n, Text: l.text, Context: l.context})
		if !l.context {
			c.content.Count++
		}
		if !l.whole {
			c.clipped++
		}
		if l.whole {
			if runFrom > 0 && l.n == runTo+1 {
				runTo = l.n
			} else {
				flush()
				runFrom, runTo = l.n, l.n
			}
		} else {
			flush()
		}
		return true
	}
	defer flush()
	for _, l := range r.lines {
		if l.context {
			if lastKept && l.after {
				if !emit(l) {
					c.stop("budget")
					c.more = true
					return false
				}
			} else if !c.full {
				pending = append(pending, l)
			}
			continue
		}
		if c.full {
			c.more = true
			return false
		}
		if c.skipped < c.req.offset {
			c.skipped++
			pending, lastKept = pending[:0], false
			continue
		}
		for _, pl := range pending {
			if pl.n < l.n-c.req.before {
				continue // after-context of a skipped match
			}
			if !emit(pl) {
				c.stop("budget")
				c.more = true
				return false
			}
		}
		pending = pending[:0]
		if !emit(l) {
			c.stop("budget")
			c.more = true
			return false
		}
		c.kept++
		lastKept = true
		if c.kept >= c.req.headLimit {
			c.stop("headLimit")
		}
	}
	return true
}

// result returns the finished result of the request's mode.
func (c *grepCollector) result() any {
	notice := c.notice()
	switch c.req.mode {
	case grepContent:
		c.content.Truncated = c.more || c.clipped > 0
		c.content.Notice = notice
		if c.content.Matches == nil {
			c.content.Matches = []grepMatch{}
		}
		if c.content.Tags == nil {
			c.content.Tags = map[string]string{}
		}
		return c.content
	case grepCount:
		c.counts.Truncated, c.counts.Notice = c.more, notice
		if c.counts.Counts == nil {
			c.counts.Counts = []grepCountEntry{}
		}
		return c.counts
	default:
		c.files.Truncated, c.files.Notice = c.more, notice
		if c.files.Files == nil {
			c.files.Files = []string{}
		}
		return c.files
	}
}

func (c *grepCollector) notice() string {
	var parts []string
	unit := map[grepMode]string{grepContent: "matching lines", grepFiles: "files", grepCount: "files"}[c.req.mode]
	if c.more {
		next := c.req.offset + c.kept
		switch c.why {
		case "headLimit":
			parts = append(parts, fmt.Sprintf("Stopped at headLimit=%d %s; more matches exist. Next: offset=%d, or narrow path/glob.",
				c.req.headLimit, unit, next))
		default:
			parts = append(parts, fmt.Sprintf("Stopped at the %dKB / %d-line result budget after %d %s; more matches exist. Next: offset=%d, or narrow path/glob.",
				limits.SearchBudgetBytes/limits.KB, limits.SearchBudgetLines, c.kept, unit, next))
		}
	}
	if c.clipped > 0 {
		parts = append(parts, fmt.Sprintf("%d %s clipped at %d characters or shown with invalid UTF-8 replaced (not editable; Read the file for the rest).",
			c.clipped, grepPlural(c.clipped, "line", "lines"), limits.MaxLineChars))
	}
	return strings.Join(parts, " ")
}

func grepPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// grepRun searches files in order with one worker per core, merging results
// in order, and stops as soon as the collector is full. Workers claim
// batches of limits.SearchBatchFiles consecutive files and may run
// limits.SearchLookahead files per worker ahead of the merge.
func grepRun(ctx context.Context, s *Session, req *grepRequest, files []walk.File) (any, error) {
	c := &grepCollector{s: s, req: req}
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
	slots := make([]chan []grepFileResult, nb)
	for i := range slots {
		slots[i] = make(chan []grepFileResult, 1)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	maxLines := req.offset + req.headLimit + 1
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := &grepWorker{req: req, maxMatches: maxLines}
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
				rs := make([]grepFileResult, min(lo+batch, len(files))-lo)
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
merge:
	for i := range nb {
		var rs []grepFileResult
		select {
		case rs = <-slots[i]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		tokens <- struct{}{}
		for k, r := range rs {
			if !c.add(files[i*batch+k], r) {
				break merge
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.result(), nil
}

// grepWorker searches one file at a time with a reused buffer.
type grepWorker struct {
	req        *grepRequest
	maxMatches int
	buf        []byte
}

// file searches one file; unreadable and binary files yield an empty result.
func (g *grepWorker) file(ctx context.Context, f walk.File) grepFileResult {
	var res grepFileResult
	if ctx.Err() != nil || walk.IsBinaryName(f.Abs) {
		return res
	}
	// Raw syscalls: os.File's poller registration, Stat and EOF probe read
	// cost as much as the search on small files. O_NONBLOCK: should the
	// path have become a FIFO since the walk, nothing blocks.
	fd, err := unix.Open(f.Abs, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return res
	}
	defer unix.Close(fd)
	rd := grepReader{fd: fd, left: f.Size}
	if f.Size == 0 { // /proc files report size 0: read to EOF (SPEC §4)
		rd.left = limits.UnsizedFileMaxBytes
	}
	if cap(g.buf) < limits.SniffBytes {
		g.buf = make([]byte, 0, max(limits.SniffBytes, min(int(rd.left)+1, g.req.chunkBytes)))
	}
	n, eof, err := rd.fill(g.buf[:limits.SniffBytes])
	if err != nil {
		return res
	}
	if binary, _ := walk.Sniff(g.buf[:n], eof); binary {
		return res
	}
	var h hash.Hash32
	if g.req.mode == grepContent {
		h = sourceset.NewHash()
	}
	data := g.buf[:n]
	base := 0                // lines before data
	done := false            // enough matches: only the tag still needs the rest
	first := true            // data starts at the file's start
	want := g.req.chunkBytes // bytes to gather before searching
	for {
		for !eof && len(data) < want {
			if cap(g.buf) == len(data) {
				// Grow towards what this file still needs, not a whole
				// chunk: a fresh 8 MiB per worker costs more to fault in
				// than most files take to search.
				need := len(data) + int(min(rd.left, int64(want)))
				nb := make([]byte, len(data), max(2*cap(g.buf), min(need, want)))
				copy(nb, data)
				g.buf = nb
			}
			m, end, err := rd.fill(g.buf[len(data):cap(g.buf)])
			data = g.buf[:len(data)+m]
			if err != nil {
				return grepFileResult{}
			}
			eof = end
		}
		cut := len(data)
		if !eof {
			i := lastNewline(data)
			if i < 0 {
				// One line longer than a chunk: gather until it ends.
				want = 2 * len(data)
				continue
			}
			cut = i + 1
		}
		want = g.req.chunkBytes
		chunk := data[:cut]
		if !done {
			done = g.chunk(chunk, base, &res)
			if done && h == nil {
				return res
			}
		}
		// The tag covers the whole file, so every chunk of a file read in
		// several is hashed; a file read in one is hashed only if it is
		// shown (most files of a content search match nothing).
		if h != nil && (!first || !eof || len(res.lines) > 0) {
			h.Write(chunk)
		}
		first = false
		if eof {
			break
		}
		if ctx.Err() != nil {
			return grepFileResult{}
		}
		base += limits.CountLines(chunk)
		rest := copy(g.buf[:cap(g.buf)], data[cut:])
		data = g.buf[:rest]
	}
	if h != nil && len(res.lines) > 0 {
		res.tag = sourceset.TagSum(h.Sum32())
	}
	return res
}

// grepReader reads a file up to the size the walk saw: a file that grows
// while it is searched is searched as it was, and no read is spent on EOF.
type grepReader struct {
	fd   int
	left int64
}

// fill reads into p until it is full or the file ends; eof reports the end.
func (r *grepReader) fill(p []byte) (n int, eof bool, err error) {
	for n < len(p) && r.left > 0 {
		want := min(int64(len(p)-n), r.left)
		m, err := unix.Read(r.fd, p[n:n+int(want)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, true, fmt.Errorf("read: %w", err)
		}
		if m == 0 {
			r.left = 0
			break
		}
		n += m
		r.left -= int64(m)
	}
	return n, r.left == 0, nil
}

func lastNewline(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}

// chunk searches one chunk (whole lines) whose first line is number base+1,
// adding to res; it returns true when the file needs no more searching.
func (g *grepWorker) chunk(buf []byte, base int, res *grepFileResult) bool {
	req := g.req
	done := false
	last := 0 // last line number (within the chunk) added in content mode
	req.m.MatchLines(buf, func(n, s, e int) bool {
		res.count++
		switch req.mode {
		case grepFiles:
			done = true
			return false
		case grepCount:
			return true
		}
		if req.before > 0 && last < n-1 {
			from := max(last+1, n-req.before)
			ls := s
			var spans [][2]int
			for k := n - 1; k >= from; k-- {
				le := ls - 1
				ls = lastNewlineBefore(buf, le) + 1
				spans = append(spans, [2]int{ls, le})
			}
			for k := len(spans) - 1; k >= 0; k-- {
				res.lines = append(res.lines, grepMakeLine(base+n-1-k, buf[spans[k][0]:spans[k][1]], true, false))
			}
		}
		res.lines = append(res.lines, grepMakeLine(base+n, buf[s:e], false, false))
		last = n
		if res.count >= g.maxMatches {
			done = true
		}
		// After-context: lines following this match up to the next match are
		// added when the next match (or the end) is known, below.
		if req.after > 0 {
			pos := e + 1
			for k := 1; k <= req.after && pos < len(buf); k++ {
				le := indexNewline(buf, pos)
				if g.nextIsMatch(buf, pos, le) {
					break
				}
				res.lines = append(res.lines, grepMakeLine(base+n+k, buf[pos:le], true, true))
				last = n + k
				pos = le + 1
			}
		}
		return !done
	})
	return done
}

// nextIsMatch reports whether the line buf[s:e] matches on its own, so that
// after-context stops before it and the scan reports it as a match.
func (g *grepWorker) nextIsMatch(buf []byte, s, e int) bool {
	found := false
	g.req.m.MatchLines(buf[s:e], func(int, int, int) bool { found = true; return false })
	return found
}

func lastNewlineBefore(b []byte, end int) int {
	for i := end - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}

func indexNewline(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == '\n' {
			return i
		}
	}
	return len(b)
}

// grepMakeLine clips one line (CR of a CRLF ending dropped) for display.
func grepMakeLine(n int, line []byte, context, after bool) grepLine {
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	text, clipped, lossy := limits.ClipLine(line)
	return grepLine{n: n, text: text, context: context, after: after, whole: !clipped && !lossy}
}
