package methods

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/search"
	"github.com/toolrpc/toolrpc/sourceset"
)

func grepTestSession(t testing.TB) *Session {
	t.Helper()
	s, err := NewSession(Config{Root: t.TempDir(), DataDir: t.TempDir(), SessionID: "grep-test"},
		&protocol.InitializeParams{})
	require.NoError(t, err)
	t.Cleanup(s.Index.Close) // before the temporary dirs go: the index worker writes there
	return s
}

// grepTestFiles writes files with modification times: the first listed is
// the newest, each next one an hour older.
func grepTestFiles(t testing.TB, s *Session, files [][2]string) {
	t.Helper()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, f := range files {
		p := filepath.Join(s.Roots.First(), filepath.FromSlash(f[0]))
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
	mid, err := os.ReadFile(filepath.Join(s.Roots.First(), "mid.txt"))
	require.NoError(t, err)
	require.Equal(t, search.ContentResult{
		Matches: []search.Match{{Path: "mid.txt", Line: 1, Text: "TODO two"}, {Path: "mid.txt", Line: 3, Text: "TODO three"}},
		Tags:    map[string]string{"mid.txt": sourceset.TagOf(mid)},
		Count:   2, Files: 1,
	}, content)
	require.True(t, s.Sources.Has(filepath.Join(s.Roots.First(), "mid.txt"), sourceset.TagOf(mid), 3))
	require.False(t, s.Sources.Has(filepath.Join(s.Roots.First(), "mid.txt"), sourceset.TagOf(mid), 2))

	// An explicit path reaches the ignored tree.
	files, rerr = grepTestRun[search.FilesResult](t, s, "tools/grep", map[string]any{"pattern": "TODO", "path": "node_modules"})
	require.Nil(t, rerr)
	require.Equal(t, []string{"node_modules/dep/x.js"}, files.Files)
}

func TestGrepContext(t *testing.T) {
	s := grepTestSession(t)
	grepTestFiles(t, s, grepTestTree)
	type line struct {
		N   int
		Ctx bool
	}
	tests := []struct {
		name   string
		params map[string]any
		want   []line
	}{
		{"context 1", map[string]any{"context": 1}, []line{{3, true}, {4, false}, {5, true}, {8, true}, {9, false}, {10, true}}},
		{"after 4 overlaps next match", map[string]any{"after": 4}, []line{{4, false}, {5, true}, {6, true}, {7, true}, {8, true}, {9, false}, {10, true}}},
		{"before 2", map[string]any{"before": 2}, []line{{2, true}, {3, true}, {4, false}, {7, true}, {8, true}, {9, false}}},
		{"offset skips first match and its context", map[string]any{"context": 1, "offset": 1}, []line{{8, true}, {9, false}, {10, true}}},
		{"headLimit keeps after-context of the last match", map[string]any{"context": 1, "headLimit": 1}, []line{{3, true}, {4, false}, {5, true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := map[string]any{"pattern": "TODO", "outputMode": "content", "path": "sub/old.go"}
			for k, v := range tc.params {
				p[k] = v
			}
			res, rerr := grepTestRun[search.ContentResult](t, s, "tools/grep", p)
			require.Nil(t, rerr)
			var got []line
			for _, m := range res.Matches {
				got = append(got, line{m.Line, m.Context})
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestGrepPaging(t *testing.T) {
	s := grepTestSession(t)
	var files [][2]string
	for i := 0; i < 30; i++ {
		files = append(files, [2]string{filepath.Join("d", string(rune('a'+i%26))+strings.Repeat("x", i/26)+".txt"), "hit\nmiss\nhit\n"})
	}
	grepTestFiles(t, s, files)
	all, rerr := grepTestRun[search.ContentResult](t, s, "tools/grep", map[string]any{"pattern": "hit", "outputMode": "content", "headLimit": 1000})
	require.Nil(t, rerr)
	require.Len(t, all.Matches, 60)
	require.False(t, all.Truncated)
	var paged []search.Match
	for off := 0; ; off += 7 {
		page, rerr := grepTestRun[search.ContentResult](t, s, "tools/grep", map[string]any{"pattern": "hit", "outputMode": "content", "headLimit": 7, "offset": off})
		require.Nil(t, rerr)
		paged = append(paged, page.Matches...)
		if !page.Truncated {
			break
		}
		require.Len(t, page.Matches, 7)
		require.Contains(t, page.Notice, "headLimit=7")
		require.Contains(t, page.Notice, "offset="+itoa(off+7))
	}
	require.Equal(t, all.Matches, paged)

	// Exactly headLimit matches: nothing more exists, so not truncated.
	exact, rerr := grepTestRun[search.FilesResult](t, s, "tools/grep", map[string]any{"pattern": "hit", "headLimit": 30})
	require.Nil(t, rerr)
	require.Len(t, exact.Files, 30)
	require.False(t, exact.Truncated)
}

func TestGrepBudgetAndClip(t *testing.T) {
	s := grepTestSession(t)
	long := strings.Repeat("é", limits.MaxLineChars+10)
	var b strings.Builder
	for i := 0; i < 20; i++ {
		b.WriteString("hit " + long + "\n")
	}
	b.WriteString("hit short\n")
	grepTestFiles(t, s, [][2]string{{"big.txt", b.String()}})
	res, rerr := grepTestRun[search.ContentResult](t, s, "tools/grep", map[string]any{"pattern": "hit", "outputMode": "content"})
	require.Nil(t, rerr)
	require.True(t, res.Truncated)
	require.Less(t, len(res.Matches), 20)
	require.Regexp(t, `^Stopped at the 128 KB / 4000-line result budget after \d+ matching lines\. Next: offset=\d+, or narrow path/glob\.`, res.Notice)
	require.Contains(t, res.Notice, "clipped at 16384 characters")
	for _, m := range res.Matches {
		require.Equal(t, limits.MaxLineChars, len([]rune(m.Text)))
		require.False(t, s.Sources.Has(filepath.Join(s.Roots.First(), "big.txt"), res.Tags["big.txt"], m.Line))
	}
}

func TestGrepChunksMatchWholeFile(t *testing.T) {
	s := grepTestSession(t)
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString(strings.Repeat("x", i%37) + "\n")
		if i%13 == 0 {
			b.WriteString("needle " + itoa(i) + "\n")
		}
	}
	b.WriteString(strings.Repeat("y", 300) + " needle at end without newline")
	grepTestFiles(t, s, [][2]string{{"f.txt", b.String()}})
	params := map[string]any{"pattern": "needle", "outputMode": "content", "context": 2, "headLimit": 1000}
	want, rerr := grepTestRun[search.ContentResult](t, s, "tools/grep", params)
	require.Nil(t, rerr)
	old := grepChunkBytes
	grepChunkBytes = 64
	t.Cleanup(func() { grepChunkBytes = old })
	got, rerr := grepTestRun[search.ContentResult](t, s, "tools/grep", params)
	require.Nil(t, rerr)
	require.Equal(t, want.Tags, got.Tags)
	var wantMatches, gotMatches []search.Match
	for _, m := range want.Matches {
		if !m.Context {
			wantMatches = append(wantMatches, m)
		}
	}
	for _, m := range got.Matches {
		if !m.Context {
			gotMatches = append(gotMatches, m)
		}
	}
	require.Equal(t, wantMatches, gotMatches)
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
	_, err := grepCall(ctx, s, rpc.NewCall("tools/grep", json.RawMessage(`1`), json.RawMessage(`{"pattern":"TODO"}`), nil))
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

// FuzzGrepChunks checks that searching a file in small chunks finds the same
// matching lines, numbers and tag as searching it whole.
func FuzzGrepChunks(f *testing.F) {
	f.Add("a\nneedle\r\nb\n", "needle", 3)
	f.Add("x\n\nneedle", "^needle$", 1)
	f.Add(strings.Repeat("ab", 100)+"\nneedle\n", "e+d", 7)
	f.Fuzz(func(t *testing.T, content, pattern string, chunk int) {
		if chunk < 1 || chunk > 1<<16 || strings.IndexByte(content, 0) >= 0 {
			return
		}
		s := grepTestSession(t)
		grepTestFiles(t, s, [][2]string{{"f.txt", content}})
		params := map[string]any{"pattern": pattern, "outputMode": "content", "headLimit": 100000}
		want, rerr := grepTestRun[search.ContentResult](t, s, "tools/grep", params)
		if rerr != nil {
			return
		}
		old := grepChunkBytes
		grepChunkBytes = chunk
		defer func() { grepChunkBytes = old }()
		got, rerr := grepTestRun[search.ContentResult](t, s, "tools/grep", params)
		require.Nil(t, rerr)
		require.Equal(t, want, got)
	})
}

// BenchmarkGrepCorpus runs grep over $TOOLRPC_BENCH_CORPUS (e.g. a copy of
// the Go tree); the peer comparison through the binary is in the report.
func BenchmarkGrepCorpus(b *testing.B) {
	root := os.Getenv("TOOLRPC_BENCH_CORPUS")
	if root == "" {
		b.Skip("TOOLRPC_BENCH_CORPUS not set")
	}
	s, err := NewSession(Config{Root: root, DataDir: b.TempDir(), SessionID: "grep-bench"}, &protocol.InitializeParams{})
	require.NoError(b, err)
	b.Cleanup(s.Index.Close)
	for _, tc := range []struct{ name, params string }{
		{"count", `{"pattern":"func main","outputMode":"count","headLimit":100000}`},
		{"fold", `{"pattern":"readfull","caseInsensitive":true,"outputMode":"content","headLimit":100000}`},
		{"weak", `{"pattern":"[A-Z]{3,}_[A-Z]+ = ","outputMode":"count","headLimit":100000}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := grepCall(context.Background(), s, rpc.NewCall("tools/grep", json.RawMessage(`1`), json.RawMessage(tc.params), nil)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
