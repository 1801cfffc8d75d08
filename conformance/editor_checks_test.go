package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// The checks the Neovim and the Emacs tests of SPEC §15 share: each editor
// scenario logs its replies under the same keys.

// docsBlock returns the n-th (from 0) block of docs/editors.md in lang, as
// it stands: lua 0 is Neovim's, elisp 0 eglot's, elisp 1 lsp-mode's.
func docsBlock(t *testing.T, lang string, n int) string {
	b, err := os.ReadFile(filepath.Join("..", "docs", "editors.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllSubmatch(b, -1)
	require.Greater(t, len(m), n, "docs/editors.md has no %s block %d", lang, n)
	return string(m[n][1])
}

// runEditor runs an editor's scenario command and returns what the
// scenario logged as JSON in outFile.
func runEditor(t *testing.T, cmd *exec.Cmd, outFile string) map[string]json.RawMessage {
	t.Helper()
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s: %s", filepath.Base(cmd.Path), output)
	b, err := os.ReadFile(outFile)
	require.NoError(t, err, "the scenario did not finish: %s", output)
	var got map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &got), "%s", b)
	return got
}

// editorGrep is a tools/grep result in content mode.
type editorGrep struct {
	Matches []struct {
		Path string `json:"path"`
		Line int    `json:"line"`
		Text string `json:"text"`
	} `json:"matches"`
}

// checkStaleRefused checks a scenario that logged a tools/edit of root's
// a.txt made against text the user has since typed (edit), the buffer after
// it (buffer, want) and a tools/read of a.txt after it (read): the edit is
// STALE_TAG with the buffer's tag, nothing of it is applied, and the disk
// still holds disk.
func checkStaleRefused(t *testing.T, got map[string]json.RawMessage, root, edit, read, buffer, want, disk string) {
	t.Helper()
	kind, raw := nvimErrKind(t, got, edit)
	require.Equal(t, "STALE_TAG", kind, "%s", raw)
	var d struct {
		Tag string `json:"tag"`
	}
	require.NoError(t, json.Unmarshal(raw, &d))
	require.Equal(t, nvimResult[editorRead](t, got, read).Tag, d.Tag, "STALE_TAG names the buffer's current tag")
	require.Equal(t, want, nvimGet[string](t, got, buffer), "nothing of the edit applied")
	require.Equal(t, disk, readFile(t, filepath.Join(root, "a.txt")))
}

// checkUnsavedSeen checks a scenario that replaced line 2 of root's a.txt
// ("alpha\nbeta\ngamma\n") with typed, left it unsaved, and logged
// tools/grep for "typed" (grep, content; count, count), for "beta" (stale),
// tools/read of a.txt (read) and tools/bash `cat a.txt` (bash).
func checkUnsavedSeen(t *testing.T, got map[string]json.RawMessage, root, typed string) {
	t.Helper()
	grep := nvimResult[editorGrep](t, got, "grep")
	require.Len(t, grep.Matches, 1)
	require.Equal(t, "a.txt", grep.Matches[0].Path)
	require.Equal(t, 2, grep.Matches[0].Line)
	require.Equal(t, typed, grep.Matches[0].Text)
	count := nvimResult[struct {
		Counts []struct {
			Count int `json:"count"`
		} `json:"counts"`
	}](t, got, "count")
	require.Len(t, count.Counts, 1, "count agrees with content")
	require.Equal(t, 1, count.Counts[0].Count)
	stale := nvimResult[struct {
		Files []string `json:"files"`
	}](t, got, "stale")
	require.Empty(t, stale.Files, "the disk's 'beta' is gone from the buffer")

	read := nvimResult[editorRead](t, got, "read")
	require.Equal(t, "editor", read.Source)
	require.True(t, read.Unsaved)
	require.NotNil(t, read.Version)
	require.Equal(t, "[a.txt#"+read.Tag+"]\n1:alpha\n2:"+typed+"\n3:gamma\n", read.Content)
	require.Equal(t, "alpha\nbeta\ngamma\n", readFile(t, filepath.Join(root, "a.txt")), "nothing was saved")

	bash := nvimResult[struct {
		Stdout string `json:"stdout"`
		Notice string `json:"notice"`
	}](t, got, "bash")
	require.Equal(t, "alpha\nbeta\ngamma\n", bash.Stdout)
	require.Equal(t, "Commands see the files on disk, not the 1 unsaved editor buffer: a.txt.", bash.Notice)
}

// checkEditUndone checks a scenario that read root's a.txt (disk, equal to
// the buffer; read), edited line 2 to edited through tools/edit (edit), read
// it (readEdited), undid the edit in the editor and read it again
// (readUndone).
func checkEditUndone(t *testing.T, got map[string]json.RawMessage, root, disk, edited string) {
	t.Helper()
	read := nvimResult[editorRead](t, got, "read")
	require.Empty(t, read.Source, "a buffer equal to its file: the disk is read")
	edit := nvimResult[struct {
		Tag     string `json:"tag"`
		Content string `json:"content"`
		Notice  string `json:"notice"`
	}](t, got, "edit")
	require.Contains(t, edit.Content, "\n2:"+edited+"\n")
	require.Contains(t, edit.Notice, "editor's open buffer")
	require.Equal(t, disk, readFile(t, filepath.Join(root, "a.txt")), "the disk is not touched")
	readEdited := nvimResult[editorRead](t, got, "readEdited")
	require.Equal(t, edit.Tag, readEdited.Tag, "the edit's tag is the buffer's")
	require.True(t, readEdited.Unsaved)

	undone := nvimResult[editorRead](t, got, "readUndone")
	require.Empty(t, undone.Source, "after the undo the buffer equals the disk again")
	require.Equal(t, read.Tag, undone.Tag)
}
