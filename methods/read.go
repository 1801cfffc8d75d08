package methods

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolrpc/toolrpc/internal/page"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// readMethod is tools/read.
func readMethod() Method {
	return Method{
		Name: "tools/read",
		Tool: true,
		Describe: func(f Face) string {
			return fmt.Sprintf("Reads a text file of any size as numbered lines (\"N:text\") under a \"[path#TAG]\" header; "+
				"TAG names this version of the file for "+f.Tool("edit")+". Returns at most %d lines by default (max %d), "+
				"starting at offset (the first line shown, counting from one), and stops early before the content passes %d KB; "+
				"lines longer than %d characters are clipped and listed in clippedLines. "+
				"totalLines and fileBytes are always reported and notice names the next offset, so page with offset/limit "+
				"instead of reading whole files through the shell. Binary files (by extension, or a NUL byte or more than %d%% "+
				"non-printable bytes in the first %d bytes) are refused with TOOL_BINARY_CONTENT.",
				limits.ReadDefaultLimit, limits.ReadMaxLimit, limits.SearchBudgetBytes/limits.KB, limits.MaxLineChars,
				limits.BinaryNonPrintablePercent, limits.SniffBytes)
		},
		InputSchema: wire.InputSchema[wire.ReadParams](func(p wire.Props) {
			wire.Default(wire.Range(p["offset"], 1, 0), 1)
			wire.Default(wire.Range(p["limit"], 1, limits.ReadMaxLimit), limits.ReadDefaultLimit)
		}),
		OutputSchema: wire.OutputSchema[wire.ReadResult](nil),
		Call:         readCall,
	}
}

// readDecode decodes and validates the params: unknown fields, wrong types and
// out-of-range numbers are INVALID_ARGUMENT, never clamped.
func readDecode(call *rpc.Call) (path string, offset, limit int64, err error) {
	var p wire.ReadParams
	if err := call.Decode(&p); err != nil {
		return "", 0, 0, err
	}
	if p.Path == "" {
		return "", 0, 0, rpc.Errorf(rpc.InvalidArgument, "read: path is required")
	}
	offset, limit = 1, limits.ReadDefaultLimit
	if p.Offset != nil {
		offset = *p.Offset
	}
	if p.Limit != nil {
		limit = *p.Limit
	}
	if offset < 1 {
		return "", 0, 0, rpc.Errorf(rpc.InvalidArgument, "read: offset %d is out of range: lines are numbered from 1", offset)
	}
	if limit < 1 || limit > limits.ReadMaxLimit {
		return "", 0, 0, rpc.Errorf(rpc.InvalidArgument, "read: limit %d is out of range 1..%d", limit, limits.ReadMaxLimit)
	}
	return p.Path, offset, limit, nil
}

func readCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	path, offset, limit, err := readDecode(call)
	if err != nil {
		return nil, err
	}
	rp, err := resolvePath(s, "read", path)
	if err != nil {
		return nil, err
	}
	if err := sandboxRead(s, rp); err != nil {
		return nil, err
	}
	if d := bufferFor(s, rp); d != nil {
		return readBuffer(ctx, s, d, rp, offset, limit)
	}
	if !rp.Exists {
		return nil, readNotFound(s, rp)
	}
	res, err := page.ReadChecked(ctx, rp.Abs, rp.Display, path, offset, limit, s.lines, s.sources, sandboxOpened(s, rp))
	if err != nil {
		if d := sandboxDenied(err); d != err {
			return nil, d
		}
		return nil, readRefusal(s, rp, err)
	}
	res.Root = wire.Root(rp.Root)
	res.Notice = joinNotice(res.Notice, docNotice(s, rp.Abs))
	return res, nil
}

// readRefusal maps a refused read to its wire error (SPEC §10); other errors
// pass through.
func readRefusal(s *Session, rp roots.Path, err error) error {
	var e *page.Error
	if !errors.As(err, &e) {
		return err
	}
	switch e.Refusal {
	case page.NotFound:
		return readNotFound(s, rp)
	case page.IsDirectory:
		return rpc.Errorf(rpc.IsDirectory, "%s; use %s to list it", e.Msg, s.Face.Tool("glob"))
	case page.NotRegular:
		return rpc.Errorf(rpc.InvalidArgument, "%s", e.Msg).WithData(wire.NotRegularData{Path: rp.Display, FileType: e.FileType})
	case page.Binary:
		return rpc.Errorf(rpc.BinaryContent, "%s", e.Msg).WithData(wire.ReadBinaryData{Path: rp.Display, FileBytes: e.Size, Reason: e.Reason})
	case page.PermissionDenied:
		return rpc.Errorf(rpc.PermissionDenied, "%s", e.Msg)
	}
	return rpc.Errorf(rpc.IOError, "%s", e.Msg) // Changing
}

// readNotFound is the NOT_FOUND error, with up to ReadMaxSuggestions similar
// names of the same directory in data.suggestions.
func readNotFound(s *Session, rp roots.Path) error {
	sugg := s.roots.SuggestKept(rp.Abs, sandboxReadable(s))
	msg := fmt.Sprintf("read %s: no such file", rp.Display)
	if len(sugg) > 0 {
		msg += "; did you mean " + strings.Join(sugg, ", ") + "?"
	}
	return rpc.Errorf(rpc.NotFound, "%s", msg).WithData(wire.NotFoundData{Path: rp.Display, Suggestions: sugg})
}
