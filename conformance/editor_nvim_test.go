package conformance

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The tests of SPEC §15 drive a real Neovim (Debian's package, from
// .ci/install) that attaches the server to its buffers with the snippet of
// docs/editors.md, exactly as it stands. Each runs one headless Neovim over
// a Lua scenario; the scenario writes what it saw as JSON for the asserts.

// nvimPrelude is loaded before each scenario: the docs' snippet as
// module tr, and helpers.
const nvimPrelude = `
local tr = dofile(vim.env.TR_LUA)
local out = {}
local function log(k, v) out[k] = v end
local function lines(buf) return vim.api.nvim_buf_get_lines(buf, 0, -1, false) end
local function open(name)
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.ROOT .. '/' .. name))
  local buf = vim.api.nvim_get_current_buf()
  local opts = vim.fn.json_decode(vim.env.INIT_OPTIONS)
  local c = tr.attach(buf, {root = vim.env.ROOT, cmd = {vim.env.TOOLRPC_BIN}, init_options = opts})
  assert(vim.wait(10000, function() return c.initialized end, 10), 'toolrpc did not initialize')
  return buf, c
end
local function call(c, method, params)
  local r = c.request_sync(method, params, 20000)
  assert(r, method .. ' timed out')
  return r
end
-- breakUndo closes the undo block, as a user's pause between edits does.
local function breakUndo() vim.cmd('let &undolevels = &undolevels') end
local function done()
  local f = io.open(vim.env.OUT, 'w'); f:write(vim.fn.json_encode(out)); f:close()
  vim.cmd('qa!')
end
`

// runNvim runs scenario in a headless Neovim on root (files already
// there) and returns what it logged. initOptions are the server's
// initializationOptions (dataDir is added).
func runNvim(t *testing.T, root string, initOptions map[string]any, scenario string) map[string]json.RawMessage {
	t.Helper()
	nvim, err := exec.LookPath("nvim")
	require.NoError(t, err, "Neovim is installed by .ci/install (apt neovim)")
	dir := t.TempDir()
	trLua := filepath.Join(dir, "toolrpc.lua")
	require.NoError(t, os.WriteFile(trLua, []byte(docsBlock(t, "lua", 0)), 0o644))
	script := filepath.Join(dir, "scenario.lua")
	require.NoError(t, os.WriteFile(script, []byte(nvimPrelude+scenario+"\ndone()\n"), 0o644))
	if initOptions == nil {
		initOptions = map[string]any{}
	}
	initOptions["dataDir"] = t.TempDir()
	opts, err := json.Marshal(initOptions)
	require.NoError(t, err)
	outFile := filepath.Join(dir, "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-S", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "TR_LUA="+trLua, "ROOT="+root, "TOOLRPC_BIN="+bin, "INIT_OPTIONS="+string(opts), "OUT="+outFile)
	return runEditor(t, cmd, outFile)
}

// nvimReply is a request_sync reply as the scenario logs it.
type nvimReply struct {
	Result json.RawMessage `json:"result"`
	Err    *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"err"`
}

func nvimGet[T any](t *testing.T, got map[string]json.RawMessage, key string) T {
	t.Helper()
	raw, ok := got[key]
	require.True(t, ok, "the scenario logged no %s: %v", key, got)
	var v T
	require.NoError(t, json.Unmarshal(raw, &v), "%s: %s", key, raw)
	return v
}

// nvimResult decodes the result of a logged reply, failing on an error.
func nvimResult[T any](t *testing.T, got map[string]json.RawMessage, key string) T {
	t.Helper()
	r := nvimGet[nvimReply](t, got, key)
	require.Nil(t, r.Err, "%s failed: %s", key, got[key])
	var v T
	require.NoError(t, json.Unmarshal(r.Result, &v), "%s: %s", key, r.Result)
	return v
}

// nvimErrKind returns the data.code of a logged error reply.
func nvimErrKind(t *testing.T, got map[string]json.RawMessage, key string) (string, json.RawMessage) {
	t.Helper()
	r := nvimGet[nvimReply](t, got, key)
	require.NotNil(t, r.Err, "%s succeeded: %s", key, got[key])
	var d struct {
		Code string `json:"code"`
	}
	require.NoError(t, json.Unmarshal(r.Err.Data, &d))
	return d.Code, r.Err.Data
}

type editorRead struct {
	Content string `json:"content"`
	Tag     string `json:"tag"`
	Source  string `json:"source"`
	Version *int   `json:"version"`
	Unsaved bool   `json:"unsaved"`
	Notice  string `json:"notice"`
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	for name, text := range files {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// TestEditorUnsavedTextSeen checks SPEC §15 (reading): text typed into a
// Neovim buffer and not saved is what tools/grep finds and tools/read shows
// (source editor, unsaved), while bash is told it sees the disk.
func TestEditorUnsavedTextSeen(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\nbeta\ngamma\n", "b.txt": "other\n"})
	got := runNvim(t, root, nil, `
local buf, c = open('a.txt')
vim.api.nvim_buf_set_lines(buf, 1, 2, false, {'typed by the user'})
log('grep', call(c, 'tools/grep', {pattern = 'typed', outputMode = 'content'}))
log('count', call(c, 'tools/grep', {pattern = 'typed', outputMode = 'count'}))
log('stale', call(c, 'tools/grep', {pattern = 'beta'}))
log('read', call(c, 'tools/read', {path = 'a.txt'}))
log('bash', call(c, 'tools/bash', {command = 'cat a.txt'}))
log('changed', vim.fn.changenr())
`)
	checkUnsavedSeen(t, got, root, "typed by the user")
}

// TestEditorEditInBufferUndoable checks SPEC §15 (edits): tools/edit of an
// open file changes Neovim's buffer, not the disk, and Neovim's undo takes
// it back; the tools then read the disk again.
func TestEditorEditInBufferUndoable(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\nbeta\ngamma\n"})
	got := runNvim(t, root, nil, `
local buf, c = open('a.txt')
local r = call(c, 'tools/read', {path = 'a.txt'})
log('read', r)
breakUndo()
log('edit', call(c, 'tools/edit', {path = 'a.txt', tag = r.result.tag, ops = {{op = 'replace', start = 2, lines = {'BETA by the agent'}}}}))
log('buffer', lines(buf))
log('modified', vim.bo[buf].modified)
log('readEdited', call(c, 'tools/read', {path = 'a.txt'}))
breakUndo()
vim.cmd('undo')
log('undone', lines(buf))
log('readUndone', call(c, 'tools/read', {path = 'a.txt'}))
`)
	checkEditUndone(t, got, root, "alpha\nbeta\ngamma\n", "BETA by the agent")
	require.Equal(t, []string{"alpha", "BETA by the agent", "gamma"}, nvimGet[[]string](t, got, "buffer"))
	require.True(t, nvimGet[bool](t, got, "modified"))
	require.Equal(t, []string{"alpha", "beta", "gamma"}, nvimGet[[]string](t, got, "undone"))
}

// TestEditorTypedBetweenReadAndEdit checks SPEC §15 (edits): text the user
// types between the model's read and its edit makes the edit fail with
// STALE_TAG and the buffer's new tag, and nothing of the edit is applied.
func TestEditorTypedBetweenReadAndEdit(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\nbeta\ngamma\n"})
	got := runNvim(t, root, nil, `
local buf, c = open('a.txt')
local r = call(c, 'tools/read', {path = 'a.txt'})
vim.api.nvim_buf_set_lines(buf, 0, 1, false, {'alpha, typed'})
log('edit', call(c, 'tools/edit', {path = 'a.txt', tag = r.result.tag, ops = {{op = 'replace', start = 2, lines = {'BETA by the agent'}}}}))
log('buffer', lines(buf))
log('read', call(c, 'tools/read', {path = 'a.txt'}))
`)
	kind, data := nvimErrKind(t, got, "edit")
	require.Equal(t, "STALE_TAG", kind)
	read := nvimResult[editorRead](t, got, "read")
	var d struct {
		Tag string `json:"tag"`
	}
	require.NoError(t, json.Unmarshal(data, &d))
	require.Equal(t, read.Tag, d.Tag, "STALE_TAG names the buffer's current tag")
	require.Equal(t, []string{"alpha, typed", "beta", "gamma"}, nvimGet[[]string](t, got, "buffer"), "nothing of the edit applied")
	require.Equal(t, "alpha\nbeta\ngamma\n", readFile(t, filepath.Join(root, "a.txt")))
}

// TestEditorDiskWriteUnderDirtyBufferRefused checks SPEC §15 (never under a
// dirty buffer): with edits "disk", a write of a file whose buffer has
// unsaved changes is EDITOR_UNSAVED, and neither the disk nor the buffer
// changes.
func TestEditorDiskWriteUnderDirtyBufferRefused(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\n"})
	got := runNvim(t, root, map[string]any{"edits": "disk"}, `
local buf, c = open('a.txt')
vim.api.nvim_buf_set_lines(buf, 0, 1, false, {'alpha, typed'})
log('write', call(c, 'tools/write', {path = 'a.txt', content = 'replaced\n'}))
log('buffer', lines(buf))
`)
	kind, _ := nvimErrKind(t, got, "write")
	require.Equal(t, "EDITOR_UNSAVED", kind)
	r := nvimGet[nvimReply](t, got, "write")
	require.Contains(t, r.Err.Message, "unsaved changes")
	require.Equal(t, "alpha\n", readFile(t, filepath.Join(root, "a.txt")), "the disk is unchanged")
	require.Equal(t, []string{"alpha, typed"}, nvimGet[[]string](t, got, "buffer"))
}

// TestEditorDidCloseReturnsToDisk checks SPEC §15 (sync): once Neovim
// closes the buffer (didClose) the tools read the disk again.
func TestEditorDidCloseReturnsToDisk(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\n", "b.txt": "b\n"})
	got := runNvim(t, root, nil, `
local buf, c = open('a.txt')
vim.api.nvim_buf_set_lines(buf, 0, 1, false, {'alpha, typed'})
log('before', call(c, 'tools/read', {path = 'a.txt'}))
vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.ROOT .. '/b.txt'))
vim.cmd('bwipeout! ' .. buf)
log('after', call(c, 'tools/read', {path = 'a.txt'}))
`)
	require.Equal(t, "editor", nvimResult[editorRead](t, got, "before").Source)
	after := nvimResult[editorRead](t, got, "after")
	require.Empty(t, after.Source)
	require.False(t, after.Unsaved)
	require.True(t, strings.HasSuffix(after.Content, "1:alpha\n"), after.Content)
}

// TestEditorWriteInBuffer checks SPEC §15 (edits): tools/write of an open
// file replaces Neovim's buffer, keeping its line endings, not the disk.
func TestEditorWriteInBuffer(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "one\r\ntwo\r\n"})
	got := runNvim(t, root, nil, `
local buf, c = open('a.txt')
log('write', call(c, 'tools/write', {path = 'a.txt', content = '[a.txt#0000]\n1:uno\n2:dos\n3:tres\n'}))
log('buffer', lines(buf))
log('ff', vim.bo[buf].fileformat)
`)
	w := nvimResult[struct {
		Notice string `json:"notice"`
	}](t, got, "write")
	require.Contains(t, w.Notice, "editor's open buffer")
	require.Equal(t, []string{"uno", "dos", "tres"}, nvimGet[[]string](t, got, "buffer"))
	require.Equal(t, "dos", nvimGet[string](t, got, "ff"), "the buffer keeps its CRLF endings")
	require.Equal(t, "one\r\ntwo\r\n", readFile(t, filepath.Join(root, "a.txt")))
}
