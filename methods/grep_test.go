package methods

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/internal/search"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
)

func grepTestSession(t testing.TB) *Session {
	t.Helper()
	s, err := NewSession(Config{Root: t.TempDir(), DataDir: t.TempDir(), SessionID: "grep-test"},
		&protocol.InitializeParams{})
	require.NoError(t, err)
	t.Cleanup(s.index.Close) // before the temporary dirs go: the index worker writes there
	return s
}

// grepTestFiles writes files with modification times: the first listed is
// the newest, each next one an hour older.
func grepTestFiles(t testing.TB, s *Session, files [][2]string) {
	t.Helper()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, f := range files {
		p := filepath.Join(s.roots.First(), filepath.FromSlash(f[0]))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(f[1]), 0o644))
		mt := base.Add(-time.Duration(i) * time.Hour)
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
}

func grepTestRun[T any](t testing.TB, s *Session, method string, params any) (T, *rpc.Error) {
	t.Helper()
	var zero T
	raw, err := json.Marshal(params)
	require.NoError(t, err)
	call := rpc.NewCall(method, json.RawMessage(`1`), raw, nil)
	defer call.Replied()
	var res any
	if method == "tools/glob" {
		res, err = globCall(context.Background(), s, call)
	} else {
		res, err = grepCall(context.Background(), s, call)
	}
	if err != nil {
		return zero, rpc.AsError(err)
	}
	b, err := json.Marshal(res)
	require.NoError(t, err)
	var out T
	require.NoError(t, json.Unmarshal(b, &out))
	return out, nil
}

var grepTestTree = [][2]string{
	{"new.go", "package x\n// TODO one\nfunc a() {}\n"},
	{"mid.txt", "TODO two\nnothing\nTODO three\r\n"},
	{"sub/old.go", "a\nb\nc\nTODO four\nd\ne\nf\ng\nTODO five\nh\n"},
	{"node_modules/dep/x.js", "TODO ignored\n"},
	{"img.png", "TODO binary by name\n"},
	{"bin.dat", "TODO\x00binary by content\n"},
	{".gitignore", "node_modules/\n"},
}

func TestGrepModes(t *testing.T) {
	s := grepTestSession(t)
	grepTestFiles(t, s, grepTestTree)

	files, rerr := grepTestRun[search.FilesResult](t, s, "tools/grep", map[string]any{"pattern": "TODO"})
	require.Nil(t, rerr)
	// node_modules/ excluded one file the result would otherwise have searched.
	ignored := "Ignore rules excluded 1 file under the searched path (.gitignore:1 node_modules/ excluded 1); an explicit path reaches ignored files."
	require.Equal(t, search.FilesResult{Files: []string{"new.go", "mid.txt", "sub/old.go"}, Count: 3, Notice: ignored}, files)

	for _, spelling := range []string{"files_with_matches", "files-with-matches", "filesWithMatches"} {
		got, rerr := grepTestRun[search.FilesResult](t, s, "tools/grep", map[string]any{"pattern": "TODO", "outputMode": spelling})
		require.Nil(t, rerr)
		require.Equal(t, files, got)
	}

	counts, rerr := grepTestRun[search.CountResult](t, s, "tools/grep", map[string]any{"pattern": "TODO", "outputMode": "count"})
	require.Nil(t, rerr)
	require.Equal(t, search.CountResult{Counts: []search.CountEntry{{Path: "new.go", Count: 1}, {Path: "mid.txt", Count: 2}, {Path: "sub/old.go", Count: 2}}, Count: 5, Notice: ignored}, counts)

	content, rerr := grepTestRun[search.ContentResult](t, s, "tools/grep", map[string]any{"pattern": "todo", "caseInsensitive": true, "outputMode": "content", "glob": "*.txt"})
	require.Nil(t, rerr)
	// The glob keeps no ignored file: no notice.
	mid, err := os.ReadFile(filepath.Join(s.roots.First(), "mid.txt"))
	require.NoError(t, err)
	require.Equal(t, search.ContentResult{
		Matches: []search.Match{{Path: "mid.txt", Line: 1, Text: "TODO two"}, {Path: "mid.txt", Line: 3, Text: "TODO three"}},
		Tags:    map[string]string{"mid.txt": sourceset.TagOf(mid)},
		Count:   2, Files: 1,
	}, content)
	require.True(t, s.sources.Has(filepath.Join(s.roots.First(), "mid.txt"), sourceset.TagOf(mid), 3))
	require.False(t, s.sources.Has(filepath.Join(s.roots.First(), "mid.txt"), sourceset.TagOf(mid), 2))

	// An explicit path reaches the ignored tree.
	files, rerr = grepTestRun[search.FilesResult](t, s, "tools/grep", map[string]any{"pattern": "TODO", "path": "node_modules"})
	require.Nil(t, rerr)
	require.Equal(t, []string{"node_modules/dep/x.js"}, files.Files)
}

func TestGrepErrors(t *testing.T) {
	s := grepTestSession(t)
	grepTestFiles(t, s, grepTestTree)
	tests := []struct {
		name   string
		params map[string]any
		kind   string
		msg    string
	}{
		{"invalid regex", map[string]any{"pattern": "(foo"}, rpc.InvalidArgument, "missing closing )"},
		{"no pattern", map[string]any{}, rpc.InvalidArgument, "pattern is required"},
		{"headLimit 0", map[string]any{"pattern": "x", "headLimit": 0}, rpc.InvalidArgument, "headLimit 0"},
		{"negative offset", map[string]any{"pattern": "x", "offset": -1}, rpc.InvalidArgument, "offset -1"},
		{"negative context", map[string]any{"pattern": "x", "context": -1}, rpc.InvalidArgument, "context -1"},
		{"bad mode", map[string]any{"pattern": "x", "outputMode": "lines"}, rpc.InvalidArgument, "outputMode"},
		{"bad glob", map[string]any{"pattern": "x", "glob": "[a"}, rpc.InvalidArgument, "glob"},
		{"outside", map[string]any{"pattern": "x", "path": "/etc"}, rpc.PermissionDenied, "outside"},
		{"missing", map[string]any{"pattern": "x", "path": "nope"}, rpc.NotFound, "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rerr := grepTestRun[search.FilesResult](t, s, "tools/grep", tc.params)
			require.NotNil(t, rerr)
			require.Equal(t, tc.kind, rerr.Kind)
			require.Contains(t, rerr.Message, tc.msg)
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	call := rpc.NewCall("tools/grep", json.RawMessage(`1`), json.RawMessage(`{"pattern":"TODO"}`), nil)
	defer call.Replied()
	_, err := grepCall(ctx, s, call)
	require.Equal(t, rpc.Cancelled, rpc.AsError(err).Kind)
}

func TestGlob(t *testing.T) {
	s := grepTestSession(t)
	grepTestFiles(t, s, grepTestTree)
	tests := []struct {
		name   string
		params map[string]any
		want   search.GlobResult
	}{
		{"all go", map[string]any{"pattern": "**/*.go"}, search.GlobResult{Matches: []string{"new.go", "sub/old.go"}, Count: 2}},
		{"top level only", map[string]any{"pattern": "*.go"}, search.GlobResult{Matches: []string{"new.go"}, Count: 1}},
		{"braces", map[string]any{"pattern": "**/*.{txt,png}"}, search.GlobResult{Matches: []string{"mid.txt", "img.png"}, Count: 2}},
		{"relative to path", map[string]any{"pattern": "*.go", "path": "sub"}, search.GlobResult{Matches: []string{"sub/old.go"}, Count: 1}},
		{"explicit ignored path", map[string]any{"pattern": "**", "path": "node_modules"}, search.GlobResult{Matches: []string{"node_modules/dep/x.js"}, Count: 1}},
		{"limit", map[string]any{"pattern": "**", "limit": 2}, search.GlobResult{Matches: []string{"new.go", "mid.txt"}, Count: 2, Truncated: true,
			Notice: "Showing 2 of 6 files (limit=2). Next: offset=2, or narrow the pattern/path."}},
		{"offset", map[string]any{"pattern": "**", "limit": 2, "offset": 4}, search.GlobResult{Matches: []string{"bin.dat", ".gitignore"}, Count: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rerr := grepTestRun[search.GlobResult](t, s, "tools/glob", tc.params)
			require.Nil(t, rerr)
			require.Equal(t, tc.want, got)
		})
	}
	for _, bad := range []map[string]any{{"pattern": "*", "limit": 0}, {"pattern": "*", "limit": limits.GlobMaxLimit + 1}, {"pattern": "[x"}, {"pattern": "*", "offset": -1}, {"pattern": "*", "path": "new.go"}} {
		_, rerr := grepTestRun[search.GlobResult](t, s, "tools/glob", bad)
		require.NotNil(t, rerr)
		require.Equal(t, rpc.InvalidArgument, rerr.Kind)
	}
}

func TestGrepGlobDescriptions(t *testing.T) {
	require.Contains(t, mustLookup("tools/grep").Describe(LSP), "at most 200 entries")
	require.Contains(t, mustLookup("tools/grep").Describe(LSP), "longer than 16384 characters")
	require.Contains(t, mustLookup("tools/glob").Describe(LSP), "at most 100 paths by default (limit, max 1000)")
}
