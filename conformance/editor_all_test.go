package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tests of SPEC §15's edits "editor" mode: every file, open or not, is
// edited through Neovim, which attaches the server to each buffer it loads
// (attach_all of docs/editors.md's snippet).

// nvimAttachAll is the scenario's start: every buffer under the root is
// attached, then a.txt is opened for the client.
const nvimAttachAll = `
tr.attach_all({root = vim.env.ROOT, cmd = {vim.env.TOOLRPC_BIN}, init_options = vim.fn.json_decode(vim.env.INIT_OPTIONS)})
local buf, c = open('open.txt')
local function bufOf(name) return vim.fn.bufnr(vim.env.ROOT .. '/' .. name) end
local function linesOf(name) local b = bufOf(name); if b == -1 then return 'no buffer' end; return lines(b) end
local function onDisk(name) return vim.loop.fs_stat(vim.env.ROOT .. '/' .. name) ~= nil end
`

// TestEditorAllEditOfUnopenedFileInBuffer checks SPEC §15 (edits "editor"):
// tools/edit of a file Neovim has not loaded is sent to Neovim, which loads
// it into a buffer and applies the edit there: the disk is unchanged, the
// buffer is modified, the tools then read the buffer, and Neovim's undo
// takes the edit back.
func TestEditorAllEditOfUnopenedFileInBuffer(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"open.txt": "x\n", "a.txt": "alpha\nbeta\ngamma\n"})
	got := runNvim(t, root, map[string]any{"edits": "editor"}, nvimAttachAll+`
log('loadedBefore', bufOf('a.txt'))
local r = call(c, 'tools/read', {path = 'a.txt'})
log('read', r)
log('edit', call(c, 'tools/edit', {path = 'a.txt', tag = r.result.tag, ops = {{op = 'replace', start = 2, lines = {'BETA by the agent'}}}}))
local abuf = bufOf('a.txt')
log('buffer', lines(abuf))
log('modified', vim.bo[abuf].modified)
log('readEdited', call(c, 'tools/read', {path = 'a.txt'}))
vim.api.nvim_buf_call(abuf, function() vim.cmd('undo') end)
log('undone', lines(abuf))
log('readUndone', call(c, 'tools/read', {path = 'a.txt'}))
`)
	require.Equal(t, -1, nvimGet[int](t, got, "loadedBefore"), "a.txt is not open in Neovim before the edit")
	checkEditUndone(t, got, root, "alpha\nbeta\ngamma\n", "BETA by the agent")
	require.Equal(t, []string{"alpha", "BETA by the agent", "gamma"}, nvimGet[[]string](t, got, "buffer"))
	require.True(t, nvimGet[bool](t, got, "modified"))
	require.Equal(t, "editor", nvimResult[editorRead](t, got, "readEdited").Source)
	require.Equal(t, []string{"alpha", "beta", "gamma"}, nvimGet[[]string](t, got, "undone"), "Neovim's undo takes the edit back")
}

// TestEditorAllWriteOfNewFileCreatesBuffer checks SPEC §15 (edits
// "editor"): tools/write of a file that does not exist is a CreateFile and
// an edit in Neovim: a buffer with the text, nothing on disk until the user
// saves, then exactly the text.
func TestEditorAllWriteOfNewFileCreatesBuffer(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"open.txt": "x\n"})
	got := runNvim(t, root, map[string]any{"edits": "editor"}, nvimAttachAll+`
log('write', call(c, 'tools/write', {path = 'b.txt', content = 'one\ntwo\n'}))
local bbuf = bufOf('b.txt')
log('buffer', lines(bbuf))
log('modified', vim.bo[bbuf].modified)
log('onDisk', onDisk('b.txt'))
log('read', call(c, 'tools/read', {path = 'b.txt'}))
vim.api.nvim_buf_call(bbuf, function() vim.cmd('write') end)
`)
	w := nvimResult[struct {
		Created bool   `json:"created"`
		Tag     string `json:"tag"`
		Notice  string `json:"notice"`
	}](t, got, "write")
	require.True(t, w.Created)
	require.Contains(t, w.Notice, "editor's open buffer")
	require.Equal(t, []string{"one", "two"}, nvimGet[[]string](t, got, "buffer"))
	require.True(t, nvimGet[bool](t, got, "modified"))
	require.False(t, nvimGet[bool](t, got, "onDisk"), "nothing on disk before the user saves")
	read := nvimResult[editorRead](t, got, "read")
	require.Equal(t, "editor", read.Source)
	require.Equal(t, w.Tag, read.Tag)
	require.Equal(t, "one\ntwo\n", readFile(t, filepath.Join(root, "b.txt")), "the user's save writes exactly the text")
}

// TestEditorAllRefusalSendsNothing checks SPEC §15 (edits "editor"): an
// edit or write of a file not open that §8 or §14 refuses — a stale tag, a
// file the sandbox denies — is refused before anything is sent: Neovim
// loads no buffer for it, and the disk is unchanged; the same session's
// next edit does go to Neovim.
func TestEditorAllRefusalSendsNothing(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"open.txt": "x\n", "a.txt": "alpha\n", ".env": "KEY=1\n"})
	policy := map[string]any{"mode": "workspace-write", "denyRead": []string{filepath.Join(root, ".env"), filepath.Join(root, "secrets")}}
	got := runNvim(t, root, map[string]any{"edits": "editor", "sandbox": policy}, nvimAttachAll+`
log('stale', call(c, 'tools/edit', {path = 'a.txt', tag = '0000', ops = {{op = 'replace', start = 1, lines = {'A'}}}}))
log('staleBuf', bufOf('a.txt'))
log('denied', call(c, 'tools/write', {path = '.env', content = 'KEY=2\n'}))
log('deniedNew', call(c, 'tools/write', {path = 'secrets/new.txt', content = 'x\n'}))
log('deniedBuf', bufOf('.env'))
log('deniedNewBuf', bufOf('secrets/new.txt'))
local r = call(c, 'tools/read', {path = 'a.txt'})
log('edit', call(c, 'tools/edit', {path = 'a.txt', tag = r.result.tag, ops = {{op = 'replace', start = 1, lines = {'A'}}}}))
log('editBuf', linesOf('a.txt'))
`)
	kind, _ := nvimErrKind(t, got, "stale")
	require.Equal(t, "STALE_TAG", kind)
	require.Equal(t, -1, nvimGet[int](t, got, "staleBuf"), "nothing was sent to Neovim")
	kind, _ = nvimErrKind(t, got, "denied")
	require.Equal(t, "SANDBOX_DENIED", kind)
	kind, _ = nvimErrKind(t, got, "deniedNew")
	require.Equal(t, "SANDBOX_DENIED", kind)
	require.Equal(t, -1, nvimGet[int](t, got, "deniedBuf"), "nothing was sent to Neovim")
	require.Equal(t, -1, nvimGet[int](t, got, "deniedNewBuf"), "nothing was sent to Neovim")
	_, err := os.Stat(filepath.Join(root, "secrets"))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Equal(t, "KEY=1\n", readFile(t, filepath.Join(root, ".env")))

	nvimResult[struct{}](t, got, "edit")
	require.Equal(t, []string{"A"}, nvimGet[[]string](t, got, "editBuf"), "the allowed edit went to Neovim")
	require.Equal(t, "alpha\n", readFile(t, filepath.Join(root, "a.txt")))
}

// TestEditorAllWithoutApplyEditFallsBack checks SPEC §15 (edits "editor"):
// a client that cannot apply workspace edits gets today's behaviour — open
// documents and other files on disk — and one notice saying so, on the
// first edit or write only.
func TestEditorAllWithoutApplyEditFallsBack(t *testing.T) {
	s := start(t, withInitParams(func(p map[string]any) {
		p["initializationOptions"].(map[string]any)["edits"] = "editor"
	}))
	type result struct {
		Notice string `json:"notice"`
	}
	first := decode[result](t, s.call(t, "tools/write", map[string]any{"path": "a.txt", "content": "one\n"}))
	require.Equal(t, `initializationOptions.edits "editor" needs a client that declares workspace.applyEdit and workspace.workspaceEdit.documentChanges: this one does not, so edits are written to disk.`, first.Notice)
	require.Equal(t, "one\n", readFile(t, filepath.Join(s.Root, "a.txt")))
	second := decode[result](t, s.call(t, "tools/write", map[string]any{"path": "a.txt", "content": "two\n"}))
	require.Empty(t, second.Notice, "said once")
	require.Equal(t, "two\n", readFile(t, filepath.Join(s.Root, "a.txt")))
}

// TestEditorEditsOpenIsTheDefault checks SPEC §15: edits "open" is the
// default's name — accepted at initialize; files the editor does not hold
// are written to disk, with no notice — and any other value is
// INVALID_ARGUMENT naming the three.
func TestEditorEditsOpenIsTheDefault(t *testing.T) {
	s := start(t, withInitParams(func(p map[string]any) {
		p["initializationOptions"].(map[string]any)["edits"] = "open"
	}))
	w := decode[struct {
		Notice string `json:"notice"`
	}](t, s.call(t, "tools/write", map[string]any{"path": "a.txt", "content": "one\n"}))
	require.Empty(t, w.Notice)
	require.Equal(t, "one\n", readFile(t, filepath.Join(s.Root, "a.txt")))

	bad := start(t, withoutInitialize())
	_, e := bad.request(t, "initialize", map[string]any{"rootUri": "file://" + bad.Root, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"dataDir": bad.DataDir, "edits": "all"}})
	require.NotNil(t, e)
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	require.Equal(t, `initializationOptions.edits "all" is not "open", "editor" or "disk"`, e.Message)
}

// TestEditorAllDialectEdits checks SPEC §15 (edits "editor") under SPEC
// §16's dialects: str_replace of a file Neovim has not loaded, and a
// one-file apply_patch adding a file, land in Neovim's buffers, not on
// disk; a patch of two files stays all or nothing on disk.
func TestEditorAllDialectEdits(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"open.txt": "x\n", "b.txt": "other\n", "d.txt": "d\n", "e.txt": "e\n"})
	got := runNvim(t, root, map[string]any{"edits": "editor"}, nvimAttachAll+`
log('replace', call(c, 'anthropic/str_replace_based_edit_tool', {command = 'str_replace', path = 'b.txt', old_str = 'other', new_str = 'OTHER'}))
log('add', call(c, 'openai/apply_patch', {input = '*** Begin Patch\n*** Add File: c.txt\n+new\n*** End Patch'}))
log('two', call(c, 'openai/apply_patch', {input = '*** Begin Patch\n*** Update File: d.txt\n@@\n-d\n+D\n*** Update File: e.txt\n@@\n-e\n+E\n*** End Patch'}))
log('b', linesOf('b.txt'))
log('c', linesOf('c.txt'))
log('cOnDisk', onDisk('c.txt'))
log('dBuf', bufOf('d.txt'))
`)
	r := nvimResult[toolResult](t, got, "replace")
	require.False(t, r.IsError, r.Content)
	require.Contains(t, r.Content, "Note: Applied in the editor's open buffer")
	require.Equal(t, []string{"OTHER"}, nvimGet[[]string](t, got, "b"))
	require.Equal(t, "other\n", readFile(t, filepath.Join(root, "b.txt")), "the disk is not touched")
	add := nvimResult[applyPatchReply](t, got, "add")
	require.Equal(t, "completed", add.Status, add.Output)
	require.Equal(t, []string{"new"}, nvimGet[[]string](t, got, "c"))
	require.False(t, nvimGet[bool](t, got, "cOnDisk"))
	two := nvimResult[applyPatchReply](t, got, "two")
	require.Equal(t, "completed", two.Status, two.Output)
	require.Equal(t, "D\n", readFile(t, filepath.Join(root, "d.txt")))
	require.Equal(t, "E\n", readFile(t, filepath.Join(root, "e.txt")))
	require.Equal(t, -1, nvimGet[int](t, got, "dBuf"), "a patch of two files is not sent to Neovim")
}

// TestEditorAllWriteKeepsLineEndings checks SPEC §15 (edits "editor") with
// §8's line endings: a Read-shaped tools/write of a CRLF file Neovim has not
// loaded keeps its CRLF endings in the buffer, and a write of an empty file
// replaces it whole; neither touches the disk.
func TestEditorAllWriteKeepsLineEndings(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"open.txt": "x\n", "crlf.txt": "one\r\ntwo\r\n", "empty.txt": ""})
	got := runNvim(t, root, map[string]any{"edits": "editor"}, nvimAttachAll+`
log('crlf', call(c, 'tools/write', {path = 'crlf.txt', content = '[crlf.txt#0000]\n1:uno\n2:dos\n3:tres\n'}))
log('crlfBuf', linesOf('crlf.txt'))
log('ff', vim.bo[bufOf('crlf.txt')].fileformat)
log('readCRLF', call(c, 'tools/read', {path = 'crlf.txt'}))
log('empty', call(c, 'tools/write', {path = 'empty.txt', content = 'a\nb\n'}))
log('emptyBuf', linesOf('empty.txt'))
`)
	w := nvimResult[struct {
		Tag    string `json:"tag"`
		Notice string `json:"notice"`
	}](t, got, "crlf")
	require.Contains(t, w.Notice, "editor's open buffer")
	require.Equal(t, []string{"uno", "dos", "tres"}, nvimGet[[]string](t, got, "crlfBuf"))
	require.Equal(t, "dos", nvimGet[string](t, got, "ff"), "the buffer keeps the file's CRLF endings")
	require.Equal(t, w.Tag, nvimResult[editorRead](t, got, "readCRLF").Tag, "the server holds uno\\r\\ndos\\r\\ntres\\r\\n")
	nvimResult[struct{}](t, got, "empty")
	require.Equal(t, []string{"a", "b"}, nvimGet[[]string](t, got, "emptyBuf"))
	require.Equal(t, "one\r\ntwo\r\n", readFile(t, filepath.Join(root, "crlf.txt")))
	require.Equal(t, "", readFile(t, filepath.Join(root, "empty.txt")))
}
