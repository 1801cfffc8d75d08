package conformance

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDialectEditorUnsavedBuffer checks SPEC §16 (editor documents) with a
// client that cannot apply edits: a dialect's view shows the unsaved
// buffer, as tools/read does, and its edits of that file (str_replace,
// create, apply_patch, replace) are refused with EDITOR_UNSAVED in the
// failure text, the disk unchanged; a file without a buffer still edits.
func TestDialectEditorUnsavedBuffer(t *testing.T) {
	s := start(t)
	writeTree(t, s.Root, map[string]string{"a.txt": "disk\n", "b.txt": "other\n"})
	s.didOpen(t, "a.txt", "typed\n", 1)

	v := decode[toolResult](t, s.call(t, "anthropic/str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.txt"}))
	require.False(t, v.IsError, v.Content)
	require.Equal(t, "Here's the result of running `cat -n` on a.txt (the editor's unsaved buffer, not the file on disk):\n     1\ttyped\n", v.Content)

	r := decode[toolResult](t, s.call(t, "anthropic/str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "typed", "new_str": "agent"}))
	require.True(t, r.IsError)
	require.Contains(t, r.Content, "Error: EDITOR_UNSAVED: str_replace a.txt: the user has unsaved changes")
	c := decode[toolResult](t, s.call(t, "anthropic/str_replace_based_edit_tool", map[string]any{"command": "create", "path": "a.txt", "file_text": "agent\n"}))
	require.True(t, c.IsError)
	require.Contains(t, c.Content, "EDITOR_UNSAVED: create a.txt")

	p := decode[applyPatchReply](t, s.call(t, "openai/apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: b.txt\n@@\n-other\n+B\n*** Update File: a.txt\n@@\n-disk\n+agent\n*** End Patch"}))
	require.Equal(t, "failed", p.Status)
	require.Contains(t, p.Output, "EDITOR_UNSAVED: apply_patch a.txt")

	g := decode[geminiResult](t, s.call(t, "gemini/replace", map[string]any{"file_path": "a.txt", "old_string": "disk", "new_string": "agent"}))
	require.Contains(t, g.Error, "EDITOR_UNSAVED: replace a.txt")

	got := readTree(t, s.Root)
	require.Equal(t, "disk\n", got["a.txt"], "no dialect wrote under the dirty buffer")
	require.Equal(t, "other\n", got["b.txt"], "all or nothing: b.txt's hunk was not applied either")

	p = decode[applyPatchReply](t, s.call(t, "openai/apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: b.txt\n@@\n-other\n+B\n*** End Patch"}))
	require.Equal(t, "completed", p.Status, p.Output)
	require.Equal(t, "B\n", readTree(t, s.Root)["b.txt"])
}

// TestDialectEditorEditsGoThroughNeovim checks SPEC §16 (editor documents)
// against a real Neovim: str_replace and a one-file apply_patch of an open
// file change its buffer (workspace/applyEdit), not the disk, and say so;
// a patch that changes an open file and a file on disk is refused whole.
func TestDialectEditorEditsGoThroughNeovim(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\nbeta\ngamma\n", "b.txt": "other\n"})
	got := runNvim(t, root, nil, `
local buf, c = open('a.txt')
log('replace', call(c, 'anthropic/str_replace_based_edit_tool', {command = 'str_replace', path = 'a.txt', old_str = 'beta', new_str = 'BETA'}))
log('patch', call(c, 'openai/apply_patch', {input = '*** Begin Patch\n*** Update File: a.txt\n@@\n-gamma\n+GAMMA\n*** End Patch'}))
log('mixed', call(c, 'openai/apply_patch', {input = '*** Begin Patch\n*** Update File: b.txt\n@@\n-other\n+B\n*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n*** End Patch'}))
log('view', call(c, 'anthropic/str_replace_based_edit_tool', {command = 'view', path = 'a.txt'}))
log('buffer', lines(buf))
`)
	r := nvimResult[toolResult](t, got, "replace")
	require.False(t, r.IsError, r.Content)
	require.Contains(t, r.Content, "Note: Applied in the editor's open buffer")
	p := nvimResult[applyPatchReply](t, got, "patch")
	require.Equal(t, "completed", p.Status, p.Output)
	require.Equal(t, "Success. Updated the following files:\nM a.txt\nNote: Applied in the editor's open buffer (on the user's undo stack, not yet saved); the file on disk is unchanged.\n", p.Output)
	m := nvimResult[applyPatchReply](t, got, "mixed")
	require.Equal(t, "failed", m.Status)
	require.Contains(t, m.Output, "a.txt is open in the editor")
	v := nvimResult[toolResult](t, got, "view")
	require.Contains(t, v.Content, "     2\tBETA\n     3\tGAMMA\n")
	require.Equal(t, []string{"alpha", "BETA", "GAMMA"}, nvimGet[[]string](t, got, "buffer"))
	require.Equal(t, "alpha\nbeta\ngamma\n", readFile(t, filepath.Join(root, "a.txt")), "the disk is not touched")
	require.Equal(t, "other\n", readFile(t, filepath.Join(root, "b.txt")), "the mixed patch changed nothing")
}
