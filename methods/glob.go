package methods

import (
	"context"
	"fmt"
	"os"

	"github.com/toolrpc/toolrpc/internal/search"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/walk"
	"github.com/toolrpc/toolrpc/wire"
)

// globMethod is tools/glob.
func globMethod() Method {
	return Method{
		Name: "tools/glob",
		Tool: true,
		Describe: func(f Face) string {
			return fmt.Sprintf("List files whose path relative to path (default: the first workspace root) "+
				"matches a doublestar pattern (**, {a,b}, [abc]), newest first (modification time, then path). "+
				"Files only. %s"+
				"Returns at most %d paths by default (limit, max %d) and at most %d KB / %d lines per result; page with offset. "+
				"A pattern may hold at most %d {…} groups.",
				ignoreRuleText, limits.GlobDefaultLimit, limits.GlobMaxLimit, limits.SearchBudgetBytes/limits.KB, limits.SearchBudgetLines,
				limits.GlobMaxBraceGroups)
		},
		InputSchema: wire.InputSchema[wire.GlobParams](func(p wire.Props) {
			wire.Default(wire.Range(p["limit"], 1, limits.GlobMaxLimit), limits.GlobDefaultLimit)
			wire.Default(wire.Range(p["offset"], 0, 0), 0)
		}),
		OutputSchema: wire.OutputSchema[wire.GlobResult](nil),
		Call:         globCall,
	}
}

// ignoreRuleText states the ignore rules in grep's and glob's descriptions
// (SPEC §5).
var ignoreRuleText = fmt.Sprintf("Honours git's ignore rules exactly (.gitignore at every level, .git/info/exclude, the global "+
	"core.excludesFile) plus .ignore files. When ignore rules excluded files under path and the result is shorter than its "+
	"limit, notice says how many (counting reads at most %d directory entries below ignored directories) and names one rule "+
	"as file:line pattern; an explicit path reaches ignored files. ", limits.IgnoredCountEntries)

func globCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	var p wire.GlobParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	if p.Pattern == "" {
		return nil, rpc.Errorf(rpc.InvalidArgument, "glob: pattern is required")
	}
	pattern := p.Pattern
	if err := search.CheckGlob(pattern); err != nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "glob: pattern %w", err)
	}
	limit, offset := int64(limits.GlobDefaultLimit), int64(0)
	if p.Limit != nil {
		if *p.Limit < 1 || *p.Limit > limits.GlobMaxLimit {
			return nil, rpc.Errorf(rpc.InvalidArgument, "glob: limit %d is out of range 1..%d", *p.Limit, limits.GlobMaxLimit)
		}
		limit = *p.Limit
	}
	if p.Offset != nil {
		if *p.Offset < 0 {
			return nil, rpc.Errorf(rpc.InvalidArgument, "glob: offset %d is out of range: it must be at least 0", *p.Offset)
		}
		offset = *p.Offset
	}
	rp, err := resolveExisting(s, "glob", p.Path)
	if err != nil {
		return nil, err
	}
	if err := sandboxRead(s, rp); err != nil {
		return nil, err
	}
	list, _ := sandboxList(s, s.files.Walk, rp.Abs)
	call.AfterReply(func() { s.files.BuildDeferred(rp.RootDir) })
	if fi, err := os.Stat(rp.Abs); err != nil || !fi.IsDir() {
		return nil, rpc.Errorf(rpc.InvalidArgument, "glob: path %s is not a directory", rp.Display)
	}
	ex := &walk.Excluded{}
	files, err := search.Glob(ctx, list, pattern, rp.Abs, rp.RootDir, ex)
	if err != nil {
		return nil, fmt.Errorf("glob: %w", err)
	}
	var filter search.ListFilter
	if f := s.policy().ListFilter(rp.Abs); f != nil {
		filter = f // a nil *ListFilter is not a nil interface
	}
	files, only := overlay(s).GlobFront(ctx, files, pattern, rp.Abs, filter)
	res := search.GlobWindow(ctx, files, ex, offset, limit, s.roots.DisplayOf)
	res.Notice = joinNotice(res.Notice, editorOnlyNotice(s, only))
	return res, nil
}
