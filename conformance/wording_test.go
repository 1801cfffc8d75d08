package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWording_OneLineIsSingular: messages and notices about one line say
// "line", not "lines" ("1 lines", "lines 2 were not shown"). Checks SPEC §4,
// §5 and §8 (the notices).
func TestWording_OneLineIsSingular(t *testing.T) {
	s := start(t)
	long := strings.Repeat("x", 20000)
	require.NoError(t, os.WriteFile(filepath.Join(s.Root, "one.txt"), []byte("only\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.Root, "wide.txt"), []byte("a\n"+long+"\nc\nd\n"), 0o644))

	type readRes struct {
		Tag    string `json:"tag"`
		Notice string `json:"notice"`
	}
	past := decode[readRes](t, s.call(t, "tools/read", map[string]any{"path": "one.txt", "offset": 5}))
	require.Equal(t, "Offset 5 is past the end of the file, which has 1 line.", past.Notice)

	// Line 4 was never shown: reading only line 1 leaves it unseen.
	r := decode[readRes](t, s.call(t, "tools/read", map[string]any{"path": "wide.txt", "limit": 1}))
	e := s.callErr(t, "tools/edit", map[string]any{"path": "wide.txt", "tag": r.Tag,
		"ops": []map[string]any{{"op": "replace", "start": 4, "lines": []string{"D"}}}})
	require.Equal(t, "LINE_NOT_VISIBLE", e.Kind)
	require.Contains(t, e.Message, ": line 4 was not shown whole in version "+r.Tag)
	require.Contains(t, e.Message, "; Read it (narrow wide lines first) before editing")
	e = s.callErr(t, "tools/edit", map[string]any{"path": "wide.txt", "tag": r.Tag,
		"ops": []map[string]any{{"op": "replace", "start": 3, "end": 4, "lines": []string{"C"}}}})
	require.Contains(t, e.Message, "were not shown whole")

	// The changed region's context holds the one clipped line.
	r = decode[readRes](t, s.call(t, "tools/read", map[string]any{"path": "wide.txt"}))
	edited := decode[readRes](t, s.call(t, "tools/edit", map[string]any{"path": "wide.txt", "tag": r.Tag,
		"ops": []map[string]any{{"op": "replace", "start": 1, "lines": []string{"A"}}}}))
	require.Contains(t, edited.Notice, "1 line clipped at 16384 characters")
}

// TestMCP_OwnWords (SPEC §12): MCP descriptions and errors name tools and
// progress in MCP's words; LSP keeps its own.
func TestMCP_OwnWords(t *testing.T) {
	m := mcpStart(t, mcpOptions{})
	for name, tool := range m.tools {
		for _, lsp := range []string{"$/progress", "workDoneToken", "tools/"} {
			require.NotContains(t, tool.Description, lsp, name)
		}
	}
	require.Contains(t, m.tools["bash"].Description, "notifications/progress")
	require.Contains(t, m.tools["read"].Description, "this version of the file for edit.")
	res, e := m.toolErr(t, "read", map[string]any{"path": "."})
	require.Equal(t, "IS_DIRECTORY", e.Kind)
	require.True(t, strings.HasSuffix(text(res), "is a directory; use glob to list it"), text(res))
	res, e = m.toolErr(t, "read", map[string]any{"path": "x", "bogus": 1})
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	require.Equal(t, `INVALID_ARGUMENT: read: bad params: json: unknown field "bogus"`, text(res))

	s := start(t)
	lsp := s.callErr(t, "tools/read", map[string]any{"path": "."})
	require.True(t, strings.HasSuffix(lsp.Message, "is a directory; use tools/glob to list it"), lsp.Message)
	tools := decode[[]struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}](t, s.call(t, "tools/list", nil))
	for _, tool := range tools {
		if tool.Name == "tools/bash" {
			require.Contains(t, tool.Description, "$/progress chunks (token: workDoneToken, else the request id)")
		}
	}
}
