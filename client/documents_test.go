package client_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toolrpc/toolrpc/client"
	"github.com/toolrpc/toolrpc/wire"
)

// buffer is a host's buffer of one file: its text and version.
type buffer struct {
	mu      sync.Mutex
	text    string
	version int32
}

// offset returns the byte offset of an ASCII-only position.
func (b *buffer) offset(p client.Position) int {
	lines := strings.SplitAfter(b.text, "\n")
	off := 0
	for i := 0; i < p.Line && i < len(lines); i++ {
		off += len(lines[i])
	}
	return off + p.Character
}

// startHost starts the server on root with an applyEdit hook.
func startHost(t *testing.T, root string, hook client.ApplyEditHandler) *client.Conn {
	cmd := exec.Command("toolrpc")
	c, err := client.Start(cmd, client.Options{OnApplyEdit: hook})
	require.NoError(t, err)
	t.Cleanup(c.Kill)
	_, err = c.Initialize(context.Background(), &protocol.InitializeParams{
		RootURI:               protocol.DocumentURI(uri.File(root)),
		InitializationOptions: map[string]any{"dataDir": t.TempDir()},
	})
	require.NoError(t, err)
	return c
}

// TestDocuments_ApplyEditHook checks SPEC §15 through the Go client: a host
// that holds a buffer opens it, the tools read it, and tools/edit reaches
// the buffer through OnApplyEdit, not the disk.
func TestDocuments_ApplyEditHook(t *testing.T) {
	root := t.TempDir()
	abs := filepath.Join(root, "a.txt")
	require.NoError(t, os.WriteFile(abs, []byte("alpha\nbeta\n"), 0o644))
	buf := &buffer{text: "alpha\nTYPED\n", version: 1}
	var c *client.Conn
	var label string
	c = startHost(t, root, func(e client.ApplyEdit) (bool, string) {
		buf.mu.Lock()
		defer buf.mu.Unlock()
		label = e.Label
		if e.Version != buf.version {
			return false, "version mismatch"
		}
		var changes []client.TextChange
		for _, te := range e.Edits {
			s, end := buf.offset(te.Range.Start), buf.offset(te.Range.End)
			buf.text = buf.text[:s] + te.NewText + buf.text[end:]
			r := te.Range
			changes = append(changes, client.TextChange{Range: &r, Text: te.NewText})
		}
		buf.version++
		// The change goes out before the reply; the server waits for both.
		if err := c.DidChange(abs, buf.version, changes...); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	require.NoError(t, c.DidOpen(abs, "text", 1, buf.text))
	read, err := c.Read(context.Background(), wire.ReadParams{Path: "a.txt"})
	require.NoError(t, err)
	require.Equal(t, "editor", read.Source)
	require.True(t, read.Unsaved)
	require.Contains(t, read.Content, "2:TYPED\n")
	edit, err := c.Edit(context.Background(), wire.EditParams{Path: "a.txt", Tag: read.Tag,
		Ops: json.RawMessage(`[{"op":"replace","start":1,"lines":["ALPHA"]}]`)})
	require.NoError(t, err)
	require.Contains(t, edit.Content, "1:ALPHA\n")
	buf.mu.Lock()
	require.Equal(t, "ALPHA\nTYPED\n", buf.text)
	buf.mu.Unlock()
	require.Equal(t, "toolrpc: tools/edit a.txt", label)
	disk, err := os.ReadFile(abs)
	require.NoError(t, err)
	require.Equal(t, "alpha\nbeta\n", string(disk), "the disk is not touched")
	require.NoError(t, c.DidClose(abs))
	read, err = c.Read(context.Background(), wire.ReadParams{Path: "a.txt"})
	require.NoError(t, err)
	require.Empty(t, read.Source, "closed: the disk again")
}

// TestDocuments_EditorRefusal checks SPEC §15: an editor's refusal is
// STALE_TAG with the buffer's tag when the user's typing moved the text on,
// else EDIT_NOT_APPLIED, each with the editor's failureReason.
func TestDocuments_EditorRefusal(t *testing.T) {
	root := t.TempDir()
	abs := filepath.Join(root, "a.txt")
	require.NoError(t, os.WriteFile(abs, []byte("alpha\n"), 0o644))
	var c *client.Conn
	typeFirst := false
	c = startHost(t, root, func(e client.ApplyEdit) (bool, string) {
		if typeFirst { // the user types as the edit arrives
			if err := c.DidChange(abs, 3, client.TextChange{Text: "typed\n"}); err != nil {
				return false, err.Error()
			}
			return false, "document version 3 is newer than the edit's " + "2"
		}
		return false, "the user declined"
	})
	require.NoError(t, c.DidOpen(abs, "text", 2, "alpha!\n"))
	read, err := c.Read(context.Background(), wire.ReadParams{Path: "a.txt"})
	require.NoError(t, err)
	ops := json.RawMessage(`[{"op":"replace","start":1,"lines":["ALPHA"]}]`)

	_, err = c.Edit(context.Background(), wire.EditParams{Path: "a.txt", Tag: read.Tag, Ops: ops})
	var e *client.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "EDIT_NOT_APPLIED", e.Kind)
	require.Contains(t, string(e.Data), `"failureReason":"the user declined"`)

	typeFirst = true
	_, err = c.Edit(context.Background(), wire.EditParams{Path: "a.txt", Tag: read.Tag, Ops: ops})
	require.ErrorAs(t, err, &e)
	require.Equal(t, "STALE_TAG", e.Kind, e.Message)
	now, err := c.Read(context.Background(), wire.ReadParams{Path: "a.txt"})
	require.NoError(t, err)
	require.Contains(t, now.Content, "1:typed\n")
	require.Contains(t, string(e.Data), `"tag":"`+now.Tag+`"`)
	require.Contains(t, string(e.Data), "newer than the edit")
}
