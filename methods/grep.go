package methods

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/roots"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/search"
	"github.com/toolrpc/toolrpc/walk"
)

var grepChunkBytes = limits.SearchChunkBytes // tests shorten it

// grepMethod is tools/grep.
func grepMethod() Method {
	return Method{
		Name: "tools/grep",
		Tool: true,
		Description: fmt.Sprintf("Search file contents with an RE2 regular expression, newest files first "+
			"(modification time, then path; lines in file order). "+ignoreRuleText+"outputMode filesWithMatches "+
			"(default), content (matching lines with optional before/after/context lines) or count. "+
			"Returns at most %d entries by default (headLimit), and at most %d KB / %d lines per result; "+
			"page with offset. Lines longer than %d characters are clipped. Binary files are skipped. "+
			"A glob may hold at most %d {…} groups.",
			limits.IgnoredCountEntries, limits.GrepDefaultHeadLimit, limits.SearchBudgetBytes/limits.KB, limits.SearchBudgetLines, limits.MaxLineChars,
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
	}
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

func grepDecode(call *rpc.Call) (grepParams, *search.Query, error) {
	var p grepParams
	if err := call.Decode(&p); err != nil {
		return p, nil, err
	}
	if p.Pattern == nil {
		return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: pattern is required")
	}
	r := &search.Query{HeadLimit: limits.GrepDefaultHeadLimit}
	switch p.OutputMode {
	case "", "filesWithMatches", "files_with_matches", "files-with-matches":
		r.Mode = search.FilesWithMatches
	case "content":
		r.Mode = search.Content
	case "count":
		r.Mode = search.Count
	default:
		return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: outputMode %q is not one of content, filesWithMatches, count", p.OutputMode)
	}
	if p.HeadLimit != nil {
		if *p.HeadLimit < 1 {
			return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: headLimit %d is out of range: it must be at least 1", *p.HeadLimit)
		}
		r.HeadLimit = int(min(*p.HeadLimit, int64(1)<<31))
	}
	if p.Offset != nil {
		if *p.Offset < 0 {
			return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: offset %d is out of range: it must be at least 0", *p.Offset)
		}
		r.Offset = int(min(*p.Offset, int64(1)<<31))
	}
	if err := grepContext(p, r); err != nil {
		return p, nil, err
	}
	if p.Glob != "" {
		if err := search.CheckGlob(p.Glob); err != nil {
			return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: glob %w", err)
		}
	}
	r.Glob = p.Glob
	m, err := search.Compile(*p.Pattern, p.CaseInsensitive, p.Multiline)
	if err != nil {
		return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: %w", err)
	}
	r.Matcher = m
	r.ChunkBytes = grepChunkBytes
	if !p.Multiline && r.Before == 0 && r.After == 0 {
		r.ChunkBytes = min(grepChunkBytes, limits.SearchLineChunkBytes)
	}
	return p, r, nil
}

func grepCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	p, q, err := grepDecode(call)
	if err != nil {
		return nil, err
	}
	rp, err := resolveExisting(s, "grep", p.Path)
	if err != nil {
		return nil, err
	}
	q.List = s.Files.Walk
	if rp.Root == roots.Workspace {
		q.Narrow = func(files walk.Files) walk.Files {
			return s.Index.Narrow(rp.RootDir, q.Matcher.Syntax(), len(*p.Pattern), files)
		}
	}
	res, err := search.Grep(ctx, q, rp.Abs, rp.RootDir, s.Roots.DisplayOf, s.Sources)
	switch {
	case err != nil:
		return nil, fmt.Errorf("grep: %w", err)
	case res.Content != nil:
		return res.Content, nil
	case res.Counts != nil:
		return res.Counts, nil
	}
	return res.Files, nil
}

// grepContext sets q's context lines from context, before and after.
func grepContext(p grepParams, q *search.Query) error {
	for _, c := range []struct {
		name string
		v    *int64
		dst  []*int
	}{{"context", p.Context, []*int{&q.Before, &q.After}}, {"before", p.Before, []*int{&q.Before}}, {"after", p.After, []*int{&q.After}}} {
		if c.v == nil {
			continue
		}
		if *c.v < 0 {
			return rpc.Errorf(rpc.InvalidArgument, "grep: %s %d is out of range: it must be at least 0", c.name, *c.v)
		}
		for _, d := range c.dst {
			*d = int(min(*c.v, limits.SearchBudgetLines))
		}
	}
	return nil
}
