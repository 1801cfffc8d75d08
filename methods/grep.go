package methods

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/internal/search"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// grepMethod is tools/grep.
func grepMethod() Method {
	return Method{
		Name: "tools/grep",
		Tool: true,
		Describe: func(f Face) string {
			return fmt.Sprintf("Search file contents with an RE2 regular expression, newest files first "+
				"(modification time, then path; lines in file order). %soutputMode filesWithMatches "+
				"(default), content (matching lines with optional before/after/context lines) or count. "+
				"Returns at most %d entries by default (headLimit), and at most %d KB / %d lines per result; "+
				"page with offset. Lines longer than %d characters are clipped. Binary files are skipped. "+
				"A glob may hold at most %d {…} groups.",
				ignoreRuleText, limits.GrepDefaultHeadLimit, limits.SearchBudgetBytes/limits.KB, limits.SearchBudgetLines, limits.MaxLineChars,
				limits.GlobMaxBraceGroups)
		},
		InputSchema: wire.InputSchema[wire.GrepParams](func(p wire.Props) {
			p["outputMode"].Enum = wire.Enum(wire.GrepOutputModes)
			for _, n := range []string{"before", "after", "context", "offset"} {
				wire.Range(p[n], 0, 0)
			}
			wire.Default(wire.Range(p["headLimit"], 1, 0), limits.GrepDefaultHeadLimit)
		}),
		OutputSchema: wire.OutputSchema[wire.GrepResult](nil),
		Call:         grepCall,
	}
}

func grepDecode(call *rpc.Call) (wire.GrepParams, *search.Query, error) {
	var p wire.GrepParams
	if err := call.Decode(&p); err != nil {
		return p, nil, err
	}
	if p.Pattern == nil {
		return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: pattern is required")
	}
	r := &search.Query{HeadLimit: limits.GrepDefaultHeadLimit}
	switch mode := cmp.Or(p.OutputMode, "filesWithMatches"); {
	case !slices.Contains(wire.GrepOutputModes, mode):
		return p, nil, rpc.Errorf(rpc.InvalidArgument, "grep: outputMode %q is not one of %s", p.OutputMode, strings.Join(wire.GrepOutputModes[:3], ", "))
	case mode == "content":
		r.Mode = search.Content
	case mode == "count":
		r.Mode = search.Count
	default: // filesWithMatches and its other spellings
		r.Mode = search.FilesWithMatches
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
	if err := sandboxRead(s, rp); err != nil {
		return nil, err
	}
	q.Start, q.Boundary, q.Display, q.Sources = rp.Abs, rp.RootDir, s.roots.DisplayOf, s.sources
	q.List, q.Resume = s.files.Walk, s.resume
	call.AfterReply(func() { s.files.BuildDeferred(rp.RootDir) })
	pol := filePolicy(s)
	if f := pol.ListFilter(rp.Abs); f != nil {
		q.Filter = f // a filtered grep never continues a page: search drops Resume
	}
	q.Opened = pol.OpenedFilter() // a denied file under another name (mv, ln) is skipped as unreadable
	if rp.Root == roots.Workspace {
		// The index is mapped while the files are listed: a new server's
		// first grep can narrow with an index an earlier server left. A
		// build this grep asks for starts once its reply is written.
		call.AfterReply(s.index.Busy(rp.RootDir))
		q.Index = s.index
	}
	q.Overlay = overlay(s)
	res, err := search.Grep(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("grep: %w", err)
	}
	return res, nil
}

// grepContext sets q's context lines from context, before and after.
func grepContext(p wire.GrepParams, q *search.Query) error {
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
