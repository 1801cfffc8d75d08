package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/atomicfile"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/sourceset"
	"github.com/toolrpc/toolrpc/walk"
)

// Modes of what tools/write creates: the scratch dir is private to the session.
const (
	writeFileMode        fs.FileMode = 0o644
	writeDirMode         fs.FileMode = 0o755
	writeScratchFileMode fs.FileMode = 0o600
	writeScratchDirMode  fs.FileMode = 0o700
)

func init() {
	register(Method{
		Name: "tools/write",
		Tool: true,
		Description: "Creates or replaces a file with content, atomically (readers never see a partial file), " +
			"creating missing parent directories. An existing file keeps its mode. " +
			"Content pasted from a Read result (a [path#TAG] header and an N: prefix on every line) is stripped back to the file's text, " +
			"with the replaced file's line endings and final newline. " +
			"Workspace and session scratch files are writable; external roots are read-only and anything outside the roots is refused (PERMISSION_DENIED). " +
			"Returns the new tag; Read the file before editing it with tools/edit.",
		InputSchema: json.RawMessage(`{"type":"object","required":["path","content"],"properties":{` +
			`"path":{"type":"string"},"content":{"type":"string"}}}`),
		Call: writeCall,
	})
}

type writeParams struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
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
}

var writeHeader = regexp.MustCompile(`^\[.+#([0-9a-f]{4})\]$`)

// writeReadShape reports whether content is a Read result's content: an
// optional [path#TAG] header, then lines that each carry an N: prefix with N
// rising by one. It returns the lines without their prefixes and the first
// line number. A lone header is Read-shaped only with the empty file's tag.
func writeReadShape(content string) (lines []string, first int, ok bool) {
	if content == "" {
		return nil, 0, false
	}
	all := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	header := writeHeader.FindStringSubmatch(all[0])
	if header != nil {
		all = all[1:]
		if len(all) == 0 || len(all) == 1 && all[0] == "" {
			return nil, 0, header[1] == sourceset.TagOf(nil)
		}
	}
	lines = make([]string, len(all))
	for i, l := range all {
		colon := strings.IndexByte(l, ':')
		if colon < 1 {
			return nil, 0, false
		}
		n, err := strconv.Atoi(l[:colon])
		if err != nil || l[0] == '+' || l[0] == '-' {
			return nil, 0, false
		}
		if i == 0 {
			first = n
		} else if n != first+i {
			return nil, 0, false
		}
		lines[i] = l[colon+1:]
	}
	return lines, first, true
}

func writeCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	var p writeParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	if p.Content == nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "write: content is required")
	}
	rp, err := editResolve(s, "write", p.Path)
	if err != nil {
		return nil, err
	}
	unlock := fileLocks(s).lock(rp.Abs)
	defer unlock()

	fi, err := os.Stat(rp.Abs)
	switch {
	case err == nil && fi.IsDir():
		return nil, rpc.Errorf(rpc.IsDirectory, "write %s: is a directory", rp.Display)
	case err == nil && !fi.Mode().IsRegular():
		return nil, rpc.Errorf(rpc.InvalidArgument, "write %s: not a regular file", rp.Display)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("write %s: %w", rp.Display, err)
	}
	exists := err == nil

	data := []byte(*p.Content)
	notice := ""
	if lines, first, ok := writeReadShape(*p.Content); ok {
		ending, final := "\n", true
		if exists {
			if f, err := os.Open(rp.Abs); err == nil {
				st, serr := editScan(ctx, f)
				f.Close()
				if serr == nil && st.lines > 0 {
					ending, final = st.ending(), st.finalNewline
				}
			}
		}
		var b bytes.Buffer
		for i, l := range lines {
			b.WriteString(l)
			if i < len(lines)-1 || final {
				b.WriteString(ending)
			}
		}
		data = b.Bytes()
		if len(lines) > 0 {
			notice = fmt.Sprintf("Content looked like a Read result: stripped its header and line-number prefixes (lines %d-%d) and wrote the text.", first, first+len(lines)-1)
		} else {
			notice = "Content was the header of an empty Read result: wrote an empty file."
		}
	}

	if err := ctx.Err(); err != nil { // a cancelled call touches no file
		return nil, editCancelled("write", rp.Display, err)
	}
	fileMode, dirMode := writeFileMode, writeDirMode
	if rp.Root == walk.Scratch {
		fileMode, dirMode = writeScratchFileMode, writeScratchDirMode
		// The session dir must exist with its lock held, or another
		// server's start-up sweep could remove what is written here.
		if err := s.Scratch.Ensure(); err != nil {
			return nil, fmt.Errorf("write %s: %w", rp.Display, err)
		}
	}
	var af *atomicfile.File
	if exists {
		af, err = atomicfile.Replace(rp.Abs, fi)
	} else {
		if err := atomicfile.MkdirBelow(rp.RootDir, filepath.Dir(rp.Abs), dirMode); err != nil {
			if _, rerr := os.Stat(rp.RootDir); errors.Is(rerr, fs.ErrNotExist) {
				return nil, rpc.Errorf(rpc.NotFound, "write %s: the root %s no longer exists; not recreating it", rp.Display, rp.RootDir)
			}
			return nil, fmt.Errorf("write %s: create parent directories: %w", rp.Display, err)
		}
		af, err = atomicfile.Create(rp.Abs, fileMode)
	}
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", rp.Display, err)
	}
	defer af.Abort()
	if _, err := af.Write(data); err != nil {
		return nil, fmt.Errorf("write %s: %w", rp.Display, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, editCancelled("write", rp.Display, err)
	}
	if err := af.Commit(); err != nil {
		return nil, fmt.Errorf("write %s: %w", rp.Display, err)
	}
	tag := sourceset.TagOf(data)
	s.Sources.Forget(rp.Abs, tag) // an older version with this tag says nothing of the new content
	return &writeResult{
		Path: rp.Display, Root: string(rp.Root), Tag: tag,
		FileBytes: len(data), TotalLines: limits.CountLines(data), Created: !exists, Notice: notice,
	}, nil
}
