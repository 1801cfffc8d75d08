package conformance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// toolResult is an Anthropic dialect tool's result (SPEC §16).
type toolResult struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
}

// geminiResult is a Gemini dialect tool's result (SPEC §16).
type geminiResult struct {
	Output string `json:"output"`
	Error  string `json:"error"`
}

// listedTools returns tools/list's method names and model names.
func listedTools(t *testing.T, s *server) (names, models []string) {
	t.Helper()
	var tools []struct {
		Name      string `json:"name"`
		Family    string `json:"family"`
		ModelName string `json:"modelName"`
	}
	require.NoError(t, json.Unmarshal(s.call(t, "tools/list", nil), &tools))
	for _, tl := range tools {
		names = append(names, tl.Name)
		models = append(models, tl.ModelName)
	}
	return names, models
}

// withToolset sets initializationOptions.toolset.
func withToolset(v any) option {
	return withInitParams(func(p map[string]any) { p["initializationOptions"].(map[string]any)["toolset"] = v })
}

// TestToolsetOffersTheNamedFamilies checks SPEC §16 "Choosing a toolset":
// initializationOptions.toolset (a name, a list, or a comma string) and
// --toolset choose what tools/list offers, family by family; an unknown
// family is INVALID_ARGUMENT.
func TestToolsetOffersTheNamedFamilies(t *testing.T) {
	names, models := listedTools(t, start(t, withToolset("anthropic")))
	require.Equal(t, []string{"anthropic/bash", "anthropic/str_replace_based_edit_tool"}, names)
	require.Equal(t, []string{"bash", "str_replace_based_edit_tool"}, models)

	names, _ = listedTools(t, start(t, withToolset([]string{"openai", "toolrpc"})))
	require.Equal(t, "openai/apply_patch", names[0])
	require.Equal(t, []string{"openai/apply_patch", "openai/exec_command", "openai/shell", "openai/write_stdin"}, names[:4])
	require.Contains(t, names, "tools/read")

	names, models = listedTools(t, start(t, withArgs("--toolset", "gemini")))
	require.Len(t, names, 7)
	require.Equal(t, []string{"glob", "grep_search", "list_directory", "read_file", "replace", "run_shell_command", "write_file"}, models)

	s := start(t, withoutInitialize())
	_, e := s.request(t, "initialize", map[string]any{"rootUri": "file://" + s.Root,
		"initializationOptions": map[string]any{"dataDir": s.DataDir, "toolset": "cobol"}})
	require.NotNil(t, e)
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
}

// TestMCPToolsetListsModelNames checks SPEC §16 on the MCP face:
// `toolrpc mcp --toolset anthropic,toolrpc` lists the tools under the
// names the model knows, the first family keeping a shared name (bash),
// and a dialect tool's failure is isError with the dialect's text.
func TestMCPToolsetListsModelNames(t *testing.T) {
	s := mcpStart(t, mcpOptions{args: []string{"--toolset", "anthropic,toolrpc"}})
	require.Contains(t, s.tools, "str_replace_based_edit_tool")
	require.Contains(t, s.tools, "read")
	require.Equal(t, "Anthropic's bash", s.tools["bash"].Description[:len("Anthropic's bash")], "the first family keeps the name bash")
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "str_replace_based_edit_tool",
		Arguments: map[string]any{"command": "str_replace", "path": "missing.txt", "old_str": "a", "new_str": "b"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, res.Content[0].(*mcp.TextContent).Text, "does not exist")
}

// TestApplyPatchChangesNoFileWhenAHunkFails checks SPEC §16's all or
// nothing: the first section applies in memory, a later hunk fails, and
// no file changes; the output names hunk, file and patch line, and shows
// the closest lines of the file as the patch had made it.
func TestApplyPatchChangesNoFileWhenAHunkFails(t *testing.T) {
	s := start(t)
	writeTree(t, s.Root, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	res := decode[applyPatchReply](t, s.call(t, "openai/apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: b.txt\n*** Add File: c.txt\n+c\n*** Update File: a.txt\n@@\n-zzz\n+y\n*** End Patch"}))
	require.Equal(t, "failed", res.Status)
	require.Equal(t, "Error: hunk 1 of a.txt (patch line 10): Failed to find expected lines in a.txt:\nzzz\n"+
		"The closest lines in the file (1-1):\n     1\tA\nNo file was changed.", res.Output)
	require.Equal(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"}, readTree(t, s.Root))
}

// TestApplyPatchReportsATolerantMatch checks SPEC §16's matching order: a
// hunk that matched only ignoring trailing whitespace applies, and the
// output says so; the context line keeps the file's own bytes.
func TestApplyPatchReportsATolerantMatch(t *testing.T) {
	s := start(t)
	writeTree(t, s.Root, map[string]string{"a.txt": "one  \ntwo\n"})
	res := decode[applyPatchReply](t, s.call(t, "openai/apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch"}))
	require.Equal(t, "completed", res.Status)
	require.Equal(t, "Success. Updated the following files:\nM a.txt\nNote: hunk 1 of a.txt: its lines matched at line 1 only ignoring trailing whitespace.\n", res.Output)
	require.Equal(t, "one  \nTWO\n", readTree(t, s.Root)["a.txt"])
}

// TestApplyPatchTakesResponsesOperations checks SPEC §16's Responses API
// form: create_file, update_file and delete_file operations, bare or
// wrapped as {operation}.
func TestApplyPatchTakesResponsesOperations(t *testing.T) {
	s := start(t)
	res := decode[applyPatchReply](t, s.call(t, "openai/apply_patch", map[string]any{"type": "create_file", "path": "n/new.txt", "diff": "+hello\n+world"}))
	require.Equal(t, "completed", res.Status, res.Output)
	res = decode[applyPatchReply](t, s.call(t, "openai/apply_patch", map[string]any{"operation": map[string]any{"type": "update_file", "path": "n/new.txt", "diff": "@@\n hello\n-world\n+there"}}))
	require.Equal(t, "completed", res.Status, res.Output)
	require.Equal(t, "hello\nthere\n", readTree(t, s.Root)["n/new.txt"])
	res = decode[applyPatchReply](t, s.call(t, "openai/apply_patch", map[string]any{"type": "delete_file", "path": "n/new.txt"}))
	require.Equal(t, "Success. Updated the following files:\nD n/new.txt\n", res.Output)
	require.Empty(t, readTree(t, s.Root))
}

// TestDialectEditsKeepLineEndingsTabsFinalNewlineAndEncoding checks SPEC
// §16's bytes kept, under the Anthropic and Gemini editors: an old_str
// typed with \n matches a CRLF file and its replacement is written with
// CRLF; tabs, a missing final newline, a BOM and a windows-1252 encoding
// stay as they were outside the replaced text.
func TestDialectEditsKeepLineEndingsTabsFinalNewlineAndEncoding(t *testing.T) {
	s := start(t)
	files := map[string]string{
		"crlf.txt":  "one\r\n\ttwo\r\nthree",
		"bom.txt":   "\ufefffirst\nsecond\n",
		"w1252.txt": "caf\xe9 au lait\nsecond\n",
	}
	writeTree(t, s.Root, files)
	edit := func(path, old, new string) toolResult {
		return decode[toolResult](t, s.call(t, "anthropic/str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": path, "old_str": old, "new_str": new}))
	}
	r := edit("crlf.txt", "one\n\ttwo", "ONE\n\tTWO\n\tmore")
	require.False(t, r.IsError, r.Content)
	require.Contains(t, r.Content, "CRLF")
	r = edit("bom.txt", "second", "2nd")
	require.False(t, r.IsError, r.Content)
	g := decode[geminiResult](t, s.call(t, "gemini/replace", map[string]any{"file_path": "w1252.txt", "old_string": "second", "new_string": "zweite"}))
	require.Empty(t, g.Error)
	got := readTree(t, s.Root)
	require.Equal(t, "ONE\r\n\tTWO\r\n\tmore\r\nthree", got["crlf.txt"])
	require.Equal(t, "\ufefffirst\n2nd\n", got["bom.txt"])
	require.Equal(t, "caf\xe9 au lait\nzweite\n", got["w1252.txt"])
}

// TestStrReplaceSpeaksTheVendorsWordsPlusLineNumbers checks SPEC §16's
// texts: several matches and no match are refused in Anthropic's words,
// with toolrpc's line numbers of each match and the closest lines, and
// the file is unchanged.
func TestStrReplaceSpeaksTheVendorsWordsPlusLineNumbers(t *testing.T) {
	s := start(t)
	writeTree(t, s.Root, map[string]string{"a.py": "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n"})
	call := func(old string) toolResult {
		return decode[toolResult](t, s.call(t, "anthropic/str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "a.py", "old_str": old, "new_str": "q"}))
	}
	r := call("x = 1")
	require.True(t, r.IsError)
	require.Equal(t, "Error: Found 3 matches for replacement text. Please provide more context to make a unique match.\nThe matches start at lines 1, 3, 5.", r.Content)
	r = call("y = 22\nx = 1")
	require.True(t, r.IsError)
	require.True(t, strings.HasPrefix(r.Content, "Error: No match found for replacement. Please check your text and try again.\nThe closest lines in the file (2-"), r.Content)
	require.Contains(t, r.Content, "     2\ty = 2\n")
	require.Equal(t, "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n", readTree(t, s.Root)["a.py"])
}

// TestInsertTakesNewStrAndViewCountsWhatItCuts checks SPEC §16's lenient
// input (insert's text in new_str) and bounded results (view's
// max_characters, with a marker counting the lines and characters cut).
func TestInsertTakesNewStrAndViewCountsWhatItCuts(t *testing.T) {
	s := start(t)
	writeTree(t, s.Root, map[string]string{"a.txt": "1\n2\n3"})
	r := decode[toolResult](t, s.call(t, "anthropic/str_replace_based_edit_tool", map[string]any{"command": "insert", "path": "a.txt", "insert_line": 3, "new_str": "4"}))
	require.False(t, r.IsError, r.Content)
	require.Equal(t, "1\n2\n3\n4", readTree(t, s.Root)["a.txt"], "no final newline stays none")
	r = decode[toolResult](t, s.call(t, "anthropic/str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.txt", "max_characters": 20}))
	require.Equal(t, "Here's the result of running `cat -n` on a.txt:\n     1\t1\n     2\t2\n[... 2 more lines (2 characters) not shown: lines 3-4; view_range [3, 4] shows them]\n", r.Content)
}

// TestDialectPathsGoThroughRootsAndSandbox checks SPEC §16's paths: a path
// outside the roots is PERMISSION_DENIED, a write the sandbox policy
// denies (.git/config, protected) is SANDBOX_DENIED, both as the
// dialect's failure, and nothing is written, not even the patch's other
// file.
func TestDialectPathsGoThroughRootsAndSandbox(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "o.txt")
	require.NoError(t, os.WriteFile(outside, []byte("o\n"), 0o644))
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "a\n", ".git/config": "[core]\n"})
	s := start(t, withRoot(root), withSandbox(map[string]any{"mode": "workspace-write"}))
	r := decode[toolResult](t, s.call(t, "anthropic/str_replace_based_edit_tool", map[string]any{"command": "view", "path": outside}))
	require.True(t, r.IsError)
	require.Contains(t, r.Content, "PERMISSION_DENIED")
	p := decode[applyPatchReply](t, s.call(t, "openai/apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** Update File: .git/config\n@@\n [core]\n+\thooksPath = /tmp/evil\n*** End Patch"}))
	require.Equal(t, "failed", p.Status)
	require.Contains(t, p.Output, "SANDBOX_DENIED")
	require.Contains(t, p.Output, "protected")
	tree := readTree(t, s.Root)
	delete(tree, ".git/commondir") // the sandbox's placeholders for protected git entries (§14)
	delete(tree, ".git/config.worktree")
	require.Equal(t, map[string]string{"a.txt": "a\n", ".git/config": "[core]\n"}, tree)
	require.Equal(t, "o\n", string(must(os.ReadFile(outside))))
}

// TestDialectShellsKeepStdoutAndStderr checks SPEC §16's shells: Anthropic's
// bash shows stdout and stderr both and the exit code; OpenAI's shell
// answers per command with outcome, echoes max_output_length and counts
// what a cut kept.
func TestDialectShellsKeepStdoutAndStderr(t *testing.T) {
	s := start(t)
	r := decode[toolResult](t, s.call(t, "anthropic/bash", map[string]any{"command": "echo out; echo err >&2; (exit 4)"}))
	require.Equal(t, "out\nerr\n[exit code 4]", r.Content)
	var sh struct {
		Output []struct {
			Stdout, Stderr string
			Outcome        struct {
				Type     string `json:"type"`
				ExitCode *int   `json:"exit_code"`
			} `json:"outcome"`
		} `json:"output"`
		MaxOutputLength *int `json:"max_output_length"`
	}
	require.NoError(t, json.Unmarshal(s.call(t, "openai/shell", map[string]any{"action": map[string]any{
		"commands": []string{"printf 'abcdefghij'; echo oops >&2", "exit 7"}, "max_output_length": 4}}), &sh))
	require.Len(t, sh.Output, 2)
	require.Equal(t, 4, *sh.MaxOutputLength)
	require.Equal(t, "abcd\n[... cut at max_output_length 4: 4 of 10 bytes and 0 of 1 lines kept]", sh.Output[0].Stdout)
	require.Equal(t, "[... cut at max_output_length 4: 4 of 5 bytes and 1 of 1 lines kept]\nops\n", sh.Output[0].Stderr)
	require.Equal(t, "exit", sh.Output[1].Outcome.Type)
	require.Equal(t, 7, *sh.Output[1].Outcome.ExitCode)
}

// TestGeminiTakesOlderParameterNames checks SPEC §16's lenient input:
// absolute_path, directory, offset/limit and expected_replacements.
func TestGeminiTakesOlderParameterNames(t *testing.T) {
	s := start(t)
	writeTree(t, s.Root, map[string]string{"d/a.txt": "l1\nl2\nl3\nx\nx\n"})
	g := decode[geminiResult](t, s.call(t, "gemini/read_file", map[string]any{"absolute_path": filepath.Join(s.Root, "d/a.txt"), "offset": 1, "limit": 1}))
	require.Contains(t, g.Output, "Status: Showing lines 2-2 of 5 total lines.")
	require.True(t, strings.HasSuffix(g.Output, "--- FILE CONTENT (truncated) ---\nl2\n"), g.Output)
	g = decode[geminiResult](t, s.call(t, "gemini/replace", map[string]any{"file_path": "d/a.txt", "old_string": "x", "new_string": "y", "expected_replacements": 2}))
	require.Equal(t, "Successfully modified file: d/a.txt (2 replacements).", g.Output)
	g = decode[geminiResult](t, s.call(t, "gemini/run_shell_command", map[string]any{"command": "pwd", "directory": "d"}))
	require.Contains(t, g.Output, "Stdout: "+filepath.Join(s.Root, "d")+"\n")
	require.Equal(t, "l1\nl2\nl3\ny\ny\n", readTree(t, s.Root)["d/a.txt"])
}

// TestDialectParamsMustBeAnObject checks SPEC §16: params that are not a
// JSON object are the host's error, INVALID_ARGUMENT; the server serves on.
func TestDialectParamsMustBeAnObject(t *testing.T) {
	s := start(t)
	_, e := s.request(t, "openai/apply_patch", []string{"*** Begin Patch"})
	require.NotNil(t, e)
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	r := decode[toolResult](t, s.call(t, "anthropic/str_replace_based_edit_tool", map[string]any{"command": "undo_edit", "path": "a"}))
	require.True(t, r.IsError)
	require.Contains(t, r.Content, "Unrecognized command undo_edit")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestCodexExecCommandRunsOnProcesses checks SPEC §16's exec_command and
// write_stdin: a command still running after yield_time_ms answers with a
// session ID (a §13 process); write_stdin writes to it and, once it exits,
// answers with its exit code and output, in Codex's text.
func TestCodexExecCommandRunsOnProcesses(t *testing.T) {
	s := start(t)
	var r struct {
		Output string `json:"output"`
	}
	require.NoError(t, json.Unmarshal(s.call(t, "openai/exec_command", map[string]any{"cmd": "read x; echo got $x", "yield_time_ms": 200}), &r))
	m := regexp.MustCompile(`(?m)^Process running with session ID (\d+)$`).FindStringSubmatch(r.Output)
	require.NotNil(t, m, r.Output)
	id, _ := strconv.Atoi(m[1])
	require.NoError(t, json.Unmarshal(s.call(t, "openai/write_stdin", map[string]any{"session_id": id, "chars": "hello\n", "yield_time_ms": 10000}), &r))
	require.Regexp(t, `^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\ngot hello\n$`, r.Output)
}

// TestAnthropicBashIsOneShellSession checks SPEC §16's Anthropic bash: its
// commands share one shell session (§6.7), so cd and export persist, and
// restart starts a clean shell.
func TestAnthropicBashIsOneShellSession(t *testing.T) {
	s := start(t)
	require.NoError(t, os.Mkdir(filepath.Join(s.Root, "sub"), 0o755))
	bash := func(in map[string]any) toolResult { return decode[toolResult](t, s.call(t, "anthropic/bash", in)) }
	require.Equal(t, "", bash(map[string]any{"command": "cd sub && export X=kept"}).Content)
	require.Equal(t, filepath.Join(s.Root, "sub")+"\nkept\n", bash(map[string]any{"command": "pwd; echo $X"}).Content)
	require.Equal(t, "tool has been restarted.", bash(map[string]any{"restart": true}).Content)
	require.Equal(t, "unset\n", bash(map[string]any{"command": "echo ${X:-unset}"}).Content)
}
