package methods

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

func editMethod() Method {
	return Method{
		Name: "tools/edit",
		Tool: true,
		Describe: func(f Face) string {
			return fmt.Sprintf("Edits a text file by the line numbers of a Read or Grep result. "+
				"Params: path; tag, the 4-hex tag that result gave (if the file changed since, the edit fails with STALE_TAG and the current tag); "+
				"ops: [{op: \"replace\"|\"insert\"|\"delete\", start, end?, lines?}], line numbers of that version: "+
				"replace swaps lines start..end (end defaults to start) for lines, delete removes start..end, "+
				"insert puts lines after line start (0 = before the first line). "+
				"Every line an op touches must have been shown whole by a Read or Grep content result; "+
				"lines clipped at %d characters are not editable (LINE_NOT_VISIBLE names the lines). "+
				"Ops may not overlap; at most %d ops and %d bytes (%d KB) of ops per call. "+
				"Applied all or nothing and atomically, keeping the file's line endings, final newline and mode; "+
				"workspace and scratch files only (external roots are read-only). "+
				"Returns the new tag and each changed region with %d lines of context in Read's format "+
				"(at most %d lines / %d KB); those lines can be edited again without a new Read.",
				limits.MaxLineChars, limits.EditMaxOps, limits.EditMaxBytes, limits.EditMaxBytes/limits.KB,
				limits.EditContextLines, limits.SearchBudgetLines, limits.SearchBudgetBytes/limits.KB)
		},
		InputSchema: wire.InputSchema[wire.EditParams](func(p wire.Props) {
			p["tag"].Pattern = "^[0-9a-f]{4}$"
			op := wire.For[wire.EditOp]()
			op.Properties["op"].Enum = []any{"replace", "insert", "delete"}
			wire.Range(op.Properties["start"], 0, 0)
			wire.Range(op.Properties["end"], 1, 0)
			p["ops"] = &jsonschema.Schema{Type: "array", MinItems: wire.Ptr(1), MaxItems: wire.Ptr(limits.EditMaxOps), Items: op}
		}),
		OutputSchema: wire.OutputSchema[wire.EditResult](nil),
		Call:         editCall,
	}
}

func editCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	var p wire.EditParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	if len(p.Tag) != 4 || strings.Trim(p.Tag, "0123456789abcdef") != "" {
		return nil, rpc.Errorf(rpc.InvalidArgument, "edit: tag %q is not 4 lowercase hex digits from a Read or Grep result", p.Tag)
	}
	hunks, err := lineedit.ParseOps(p.Ops)
	if err != nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "edit: %w", err)
	}
	rp, err := resolveWritable(s, "edit", p.Path)
	if err != nil {
		return nil, err
	}
	if err := sandboxWrite(s, rp); err != nil {
		return nil, err
	}
	unlock := s.locks.Lock(rp.Abs)
	defer unlock()
	if d := inEditor(s, rp); d != nil && (d.Tag() == p.Tag || bufferFor(s, rp) != nil) {
		// A clean buffer of a file in another encoding (SPEC §4.1) has
		// another tag than the file a Read of the disk showed: that edit
		// goes to disk, and the editor reloads the clean buffer.
		return editInEditor(ctx, s, call, d, rp, p.Tag, hunks)
	}
	if err := refuseUnsaved(s, "edit", rp); err != nil {
		return nil, err
	}
	if inEditor(s, rp) == nil {
		if old, exists, ok := viaEditor(s, rp); ok && exists {
			return editFileInEditor(ctx, s, call, rp, old, p.Tag, hunks)
		}
	}
	res, err := lineedit.Edit(ctx, rp.Abs, rp.Display, p.Tag, hunks, s.sources)
	if err != nil {
		return nil, refusal(err)
	}
	res.Notice = joinNotice(res.Notice, s.editAll.takeNotice())
	return res, nil
}
