package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/toolrpc/toolrpc/lineedit"
	"github.com/toolrpc/toolrpc/roots"
	"github.com/toolrpc/toolrpc/rpc"
)

func writeMethod() Method {
	return Method{
		Name: "tools/write",
		Tool: true,
		Description: "Creates or replaces a file with content, atomically (readers never see a partial file), " +
			"creating missing parent directories. An existing file keeps its mode. " +
			"Content pasted from a Read result (a [path#TAG] header and an N: prefix on every line) is stripped back to the file's text, " +
			"with the replaced file's line endings and final newline. " +
			"Workspace and session scratch files are writable; external roots are read-only and anything outside the roots is refused (PERMISSION_DENIED). " +
			"encoding names the file's encoding by the label tools/read reports (or utf-8-bom); " +
			"by default an existing file keeps its own and a new file is UTF-8; text the encoding cannot represent is refused (INVALID_ARGUMENT). " +
			"Returns the new tag; Read the file before editing it with tools/edit.",
		InputSchema: json.RawMessage(`{"type":"object","required":["path","content"],"properties":{` +
			`"path":{"type":"string"},"content":{"type":"string"},"encoding":{"type":"string","description":"the file's encoding (WHATWG label); default: the existing file's, else utf-8"}}}`),
		Call: writeCall,
	}
}

type writeParams struct {
	Path     string  `json:"path"`
	Content  *string `json:"content"`
	Encoding string  `json:"encoding"`
}

// writeResult is the tools/write result.
type writeResult struct {
	Path       string `json:"path"`
	Root       string `json:"root"`
	Tag        string `json:"tag"`
	FileBytes  int    `json:"fileBytes"`
	TotalLines int    `json:"totalLines"`
	Created    bool   `json:"created"`
	Notice     string `json:"notice,omitempty"`
	Encoding   string `json:"encoding,omitempty"` // SPEC §4.1
}

func writeCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	var p writeParams
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
	unlock := s.Locks.Lock(rp.Abs)
	defer unlock()

	if err := ctx.Err(); err != nil { // a cancelled call touches no file
		return nil, err
	}
	scratch := rp.Root == roots.Scratch
	if _, err := os.Stat(rp.RootDir); !scratch && errors.Is(err, fs.ErrNotExist) {
		// Creating the parents would recreate a root the user deleted.
		return nil, rpc.Errorf(rpc.NotFound, "write %s: the root %s no longer exists; not recreating it", rp.Display, rp.RootDir)
	}
	if scratch {
		// The session dir must exist with its lock held, or another
		// server's start-up sweep could remove what is written here.
		if err := s.Scratch.Ensure(); err != nil {
			return nil, fmt.Errorf("write %s: %w", rp.Display, err)
		}
	}
	res, err := lineedit.WriteEncoded(ctx, rp.Abs, rp.Display, *p.Content, p.Encoding, scratch, s.Sources)
	if err != nil {
		return nil, refusal(err)
	}
	return &writeResult{
		Path: rp.Display, Root: string(rp.Root), Tag: res.Tag,
		FileBytes: res.FileBytes, TotalLines: res.TotalLines, Created: res.Created, Notice: res.Notice, Encoding: res.Encoding,
	}, nil
}
