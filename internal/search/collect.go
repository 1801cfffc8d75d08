package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
)

// line is one line a file search found: a match or a context line.
type line struct {
	n       int
	text    string
	context bool
	after   bool // a context line following a match (else one preceding a match)
	whole   bool // neither clipped nor lossy: it may join the edit source set
}

// fileResult is what a worker found in one file.
type fileResult struct {
	abs   string // the file searched
	pos   int    // its index in the files searched
	lines []line // content mode
	count int    // matching lines (all of them in count mode, ≥1 = has a match)
	tag   string // content mode, when lines is not empty
	// encoding is the file's WHATWG label when its text was decoded (SPEC §4.1).
	encoding string
}

// collector merges file results in order and stops when the result is full.
type collector struct {
	q       *Query
	display func(abs string) string
	sources *sourceset.Set
	ignored func() string // what the ignore rules excluded, said when the result is short
	full    bool          // headLimit or budget reached; looking for one more entry
	more    bool          // an entry past the stop point exists
	why     string

	budget  cut.ResultBudget
	skipped int // entries skipped for offset (or by the grep a continuation continues)
	kept    int // counted entries kept (matching lines, files or count rows)
	next    int // after the file of the last entry skipped or kept (FilesWithMatches, Count)
	clipped int

	content ContentResult
	files   FilesResult
	counts  CountResult
}

// stop marks the result full for the given reason.
func (c *collector) stop(why string) { c.full, c.why = true, why }

// overBudget marks the result full at the budget with more to come; it
// returns false, for add to return.
func (c *collector) overBudget() bool {
	c.stop("budget")
	c.more = true
	return false
}

// add merges one file's result; it returns false once nothing more is needed.
func (c *collector) add(abs string, r fileResult) bool {
	if r.count == 0 {
		return true
	}
	if c.q.Mode != Content {
		return c.addEntry(c.display(abs), r)
	}
	f := &shownFile{c: c, abs: abs, display: c.display(abs), tag: r.tag, encoding: r.encoding, runTo: -1}
	defer f.flush()
	return f.addLines(r.lines)
}

// addEntry merges one file of a FilesWithMatches or Count result.
func (c *collector) addEntry(display string, r fileResult) bool {
	if c.full {
		c.more = true
		return false
	}
	if c.skipped < c.q.Offset {
		c.skipped++
		c.next = r.pos + 1
		return true
	}
	if !c.budget.Take(len(display) + limits.SearchEntryOverheadBytes) {
		return c.overBudget()
	}
	c.next = r.pos + 1
	if c.q.Mode == FilesWithMatches {
		c.files.Files = append(c.files.Files, display)
		c.files.Count++
	} else {
		c.counts.Counts = append(c.counts.Counts, CountEntry{Path: display, Count: r.count})
		c.counts.Count += r.count
	}
	c.kept++
	if c.kept >= c.q.HeadLimit {
		c.stop("headLimit")
	}
	return true
}

// shownFile merges the lines of one file into a content result.
type shownFile struct {
	c            *collector
	abs, display string
	tag          string
	encoding     string
	shown        bool
	runFrom      int // the current run of whole lines for the source set
	runTo        int
	pending      []line // context lines waiting for the next kept match
	lastKept     bool   // the previous match was kept: after-context follows it
}

// addLines merges the file's lines; it returns false once nothing more is needed.
func (f *shownFile) addLines(lines []line) bool {
	c := f.c
	for _, l := range lines {
		if l.context {
			if f.lastKept && l.after {
				if !f.emit(l) {
					return c.overBudget()
				}
			} else if !c.full {
				f.pending = append(f.pending, l)
			}
			continue
		}
		if c.full {
			c.more = true
			return false
		}
		if c.skipped < c.q.Offset {
			c.skipped++
			f.pending, f.lastKept = f.pending[:0], false
			continue
		}
		for _, pl := range f.pending {
			if pl.n < l.n-c.q.Before {
				continue // after-context of a skipped match
			}
			if !f.emit(pl) {
				return c.overBudget()
			}
		}
		f.pending = f.pending[:0]
		if !f.emit(l) {
			return c.overBudget()
		}
		c.kept++
		f.lastKept = true
		if c.kept >= c.q.HeadLimit {
			c.stop("headLimit")
		}
	}
	return true
}

// emit adds one line to the result, or reports that it does not fit.
func (f *shownFile) emit(l line) bool {
	c := f.c
	cost := len(f.display) + len(l.text) + limits.SearchEntryOverheadBytes
	if !f.shown {
		cost += len(f.display) + len(f.tag) + limits.SearchEntryOverheadBytes
		if f.encoding != "" {
			cost += len(f.display) + len(f.encoding) + limits.SearchEntryOverheadBytes
		}
	}
	if !c.budget.Take(cost) {
		return false
	}
	if !f.shown {
		if c.content.Tags == nil {
			c.content.Tags = map[string]string{}
		}
		c.content.Tags[f.display] = f.tag
		if f.encoding != "" {
			if c.content.Encodings == nil {
				c.content.Encodings = map[string]string{}
			}
			c.content.Encodings[f.display] = f.encoding
		}
		c.content.Files++
		f.shown = true
	}
	c.content.Matches = append(c.content.Matches, Match{Path: f.display, Line: l.n, Text: l.text, Context: l.context})
	if !l.context {
		c.content.Count++
	}
	if !l.whole {
		c.clipped++
		f.flush()
		return true
	}
	if f.runFrom > 0 && l.n == f.runTo+1 {
		f.runTo = l.n
	} else {
		f.flush()
		f.runFrom, f.runTo = l.n, l.n
	}
	return true
}

// flush adds the current run of whole lines to the source set.
func (f *shownFile) flush() {
	if f.runTo >= f.runFrom && f.runFrom > 0 {
		f.c.sources.Add(f.abs, f.tag, f.runFrom, f.runTo)
	}
	f.runFrom, f.runTo = 0, -1
}

// finish returns the result, or the context's error.
func (c *collector) finish(ctx context.Context) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return c.result(), nil
}

// result returns the finished result of the query's mode.
func (c *collector) result() Result {
	notice := c.notice()
	switch c.q.Mode {
	case Content:
		c.content.Truncated = c.more || c.clipped > 0
		c.content.Notice = notice
		if c.content.Matches == nil {
			c.content.Matches = []Match{}
		}
		if c.content.Tags == nil {
			c.content.Tags = map[string]string{}
		}
		return Result{Content: &c.content}
	case Count:
		c.counts.Truncated, c.counts.Notice = c.more, notice
		if c.counts.Counts == nil {
			c.counts.Counts = []CountEntry{}
		}
		return Result{Counts: &c.counts}
	default:
		c.files.Truncated, c.files.Notice = c.more, notice
		if c.files.Files == nil {
			c.files.Files = []string{}
		}
		return Result{Files: &c.files}
	}
}

// notice says why the result stopped and what was clipped.
func (c *collector) notice() string {
	var parts []string
	unit := map[Mode]string{Content: "matching lines", FilesWithMatches: "files", Count: "files"}[c.q.Mode]
	if c.more {
		next := c.q.Offset + c.kept
		switch c.why {
		case "headLimit":
			parts = append(parts, fmt.Sprintf("Stopped at headLimit=%d %s; more matches exist. Next: offset=%d, or narrow path/glob.",
				c.q.HeadLimit, unit, next))
		default:
			parts = append(parts, c.budget.Notice(fmt.Sprintf("%d %s", c.kept, unit), fmt.Sprintf("offset=%d, or narrow path/glob", next)))
		}
	}
	if c.clipped > 0 {
		parts = append(parts, fmt.Sprintf("%d %s clipped at %d characters or shown with invalid UTF-8 replaced (not editable; Read the file for the rest).",
			c.clipped, plural(c.clipped, "line", "lines"), limits.MaxLineChars))
	}
	if !c.more && c.kept < c.q.HeadLimit && c.ignored != nil {
		if s := c.ignored(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
