package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// docURI is the file: URI of name below the server's root.
func (s *server) docURI(name string) string { return "file://" + filepath.Join(s.Root, name) }

func (s *server) didOpen(t *testing.T, name, text string, version int) {
	s.notify(t, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": s.docURI(name), "languageId": "text", "version": version, "text": text}})
}

func (s *server) didChange(t *testing.T, name string, version int, changes ...map[string]any) {
	s.notify(t, "textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": s.docURI(name), "version": version}, "contentChanges": changes})
}

// TestEditorInitializeSync checks SPEC §15 (sync): initialize advertises
// document sync and picks utf-8 when offered (the rest of the choice is
// TestNegotiate's); an unknown edits mode is INVALID_ARGUMENT.
func TestEditorInitializeSync(t *testing.T) {
	for _, tc := range []struct {
		offered []string
		want    string
	}{{[]string{"utf-16", "utf-8"}, "utf-8"}} { // the other offers: internal/documents TestNegotiate
		s := start(t, withInitParams(func(p map[string]any) {
			p["capabilities"] = map[string]any{"general": map[string]any{"positionEncodings": tc.offered}}
		}))
		var init struct {
			Capabilities struct {
				TextDocumentSync struct {
					OpenClose bool `json:"openClose"`
					Change    int  `json:"change"`
					Save      bool `json:"save"`
				} `json:"textDocumentSync"`
				PositionEncoding string `json:"positionEncoding"`
			} `json:"capabilities"`
			Limits map[string]int64 `json:"limits"`
		}
		require.NoError(t, json.Unmarshal(s.InitResult, &init))
		require.Equal(t, tc.want, init.Capabilities.PositionEncoding, "offered %v", tc.offered)
		require.True(t, init.Capabilities.TextDocumentSync.OpenClose)
		require.Equal(t, 2, init.Capabilities.TextDocumentSync.Change, "incremental")
		require.True(t, init.Capabilities.TextDocumentSync.Save)
		require.Equal(t, int64(64<<20), init.Limits["DOCUMENT_MAX_BYTES"])
		s.stop(t)
	}
	s := start(t, withoutInitialize())
	_, e := s.request(t, "initialize", map[string]any{"rootUri": "file://" + s.Root, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"dataDir": s.DataDir, "edits": "nowhere"}})
	require.NotNil(t, e)
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
}

// TestEditorBadInputDropsDocument checks SPEC §15 (bad input): a change the
// server cannot apply drops the document; the tools use the disk and say so
// once, and the server keeps serving; the next didOpen holds it again.
func TestEditorBadInputDropsDocument(t *testing.T) {
	s := start(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.Root, "a.txt"), []byte("disk\n"), 0o644))
	s.didOpen(t, "a.txt", "buffer\n", 1)
	s.didChange(t, "never-opened.txt", 2, map[string]any{"text": "x"})
	s.didOpen(t, "a.txt", "buffer again\n", 2) // a didOpen twice: the new text
	read := decode[editorRead](t, s.call(t, "tools/read", map[string]any{"path": "a.txt"}))
	require.Equal(t, "editor", read.Source)
	require.Contains(t, read.Content, "1:buffer again\n")

	s.didChange(t, "a.txt", 3, map[string]any{"range": map[string]any{
		"start": map[string]any{"line": 9, "character": 0}, "end": map[string]any{"line": 9, "character": 0}}, "text": "x"})
	read = decode[editorRead](t, s.call(t, "tools/read", map[string]any{"path": "a.txt"}))
	require.Empty(t, read.Source)
	require.Contains(t, read.Content, "1:disk\n")
	require.Contains(t, read.Notice, "fell out of sync")
	read = decode[editorRead](t, s.call(t, "tools/read", map[string]any{"path": "a.txt"}))
	require.NotContains(t, read.Notice, "fell out of sync", "said once")
	s.didChange(t, "a.txt", 4, map[string]any{"text": "ignored\n"})
	s.didOpen(t, "a.txt", "reopened\n", 5)
	read = decode[editorRead](t, s.call(t, "tools/read", map[string]any{"path": "a.txt"}))
	require.Contains(t, read.Content, "1:reopened\n")
}

// TestEditorGlobAndBashNotices checks SPEC §15 (reading): glob lists a
// buffer whose file is not on disk yet and says it exists only in the
// editor; bash names the unsaved buffers and a file of one it changed on
// disk; a client without applyEdit gets EDITOR_UNSAVED for a disk write
// under a dirty buffer.
func TestEditorGlobAndBashNotices(t *testing.T) {
	s := start(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.Root, "a.txt"), []byte("disk\n"), 0o644))
	s.didOpen(t, "a.txt", "unsaved\n", 1)
	s.didOpen(t, "new.txt", "only in the editor\n", 1)
	glob := decode[struct {
		Matches []string `json:"matches"`
		Notice  string   `json:"notice"`
	}](t, s.call(t, "tools/glob", map[string]any{"pattern": "*.txt"}))
	require.Equal(t, []string{"new.txt", "a.txt"}, glob.Matches)
	require.Contains(t, glob.Notice, "not on disk yet (unsaved new files): new.txt")

	bash := decode[struct {
		Notice string `json:"notice"`
	}](t, s.call(t, "tools/bash", map[string]any{"command": "echo changed > a.txt"}))
	require.Equal(t, "Commands see the files on disk, not the 2 unsaved editor buffers: a.txt, new.txt. "+
		"The command changed on disk a.txt, open in the editor with unsaved changes: the user's buffer and the disk now differ.", bash.Notice)

	e := s.callErr(t, "tools/write", map[string]any{"path": "a.txt", "content": "agent\n"})
	require.Equal(t, "EDITOR_UNSAVED", e.Kind, e.Message)
	b, err := os.ReadFile(filepath.Join(s.Root, "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "changed\n", string(b))
}
