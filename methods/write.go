package methods

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

func writeMethod() Method {
	return Method{
		Name: "tools/write",
		Tool: true,
		Describe: func(f Face) string {
			return "Creates or replaces a file with content, atomically (readers never see a partial file), " +
				"creating missing parent directories. An existing file keeps its mode. " +
				"Content pasted from a Read result (a [path#TAG] header and an N: prefix on every line) is stripped back to the file's text, " +
				"with the replaced file's line endings and final newline. " +
				"Workspace and session scratch files are writable; external roots are read-only and anything outside the roots is refused (PERMISSION_DENIED). " +
				"encoding names the file's encoding by the label " + f.Tool("read") + " reports (or utf-8-bom); " +
				"by default an existing file keeps its own and a new file is UTF-8; text the encoding cannot represent is refused (INVALID_ARGUMENT). " +
				"Returns the new tag; Read the file before editing it with " + f.Tool("edit") + "."
		},
		InputSchema:  wire.InputSchema[wire.WriteParams](nil),
		OutputSchema: wire.OutputSchema[wire.WriteResult](nil),
		Call:         writeCall,
	}
}

func writeCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	var p wire.WriteParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	if p.Content == nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "write: content is required")
	}
	rp, err := resolveWritable(s, "write", p.Path)
	if err != nil {
		return nil, err
	}
	if err := sandboxWrite(s, rp); err != nil {
		return nil, err
	}
	unlock := s.locks.Lock(rp.Abs)
	defer unlock()

	if err := ctx.Err(); err != nil { // a cancelled call touches no file
		return nil, err
	}
	if d := inEditor(s, rp); d != nil && p.Encoding == "" { // an encoding is the file's on disk (SPEC §4.1)
		return writeInEditor(ctx, s, call, d, rp, *p.Content)
	}
	if err := refuseUnsaved(s, "write", rp); err != nil {
		return nil, err
	}
	scratch := rp.Root == roots.Scratch
	if _, err := os.Stat(rp.RootDir); !scratch && errors.Is(err, fs.ErrNotExist) {
		// Creating the parents would recreate a root the user deleted.
		return nil, rpc.Errorf(rpc.NotFound, "write %s: the root %s no longer exists; not recreating it", rp.Display, rp.RootDir)
	}
	if p.Encoding == "" && inEditor(s, rp) == nil {
		if old, exists, ok := viaEditor(s, rp); ok {
			return writeFileInEditor(ctx, s, call, rp, old, exists, *p.Content)
		}
	}
	if scratch {
		// The session dir must exist with its lock held, or another
		// server's start-up sweep could remove what is written here.
		if err := s.Scratch.Ensure(); err != nil {
			return nil, fmt.Errorf("write %s: %w", rp.Display, err)
		}
	}
	res, err := lineedit.WriteEncoded(ctx, rp.Abs, rp.Display, *p.Content, p.Encoding, scratch, s.sources)
	if err != nil {
		return nil, refusal(err)
	}
	res.Root = wire.Root(rp.Root)
	res.Notice = joinNotice(res.Notice, s.editAll.takeNotice())
	return res, nil
}
