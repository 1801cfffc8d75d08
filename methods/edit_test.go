package methods

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/sourceset"
	"github.com/toolrpc/toolrpc/wire"
)

// editTestSession returns a session on root with one external root, and
// the external root.
func editTestSession(t *testing.T, root string) (*Session, string) {
	t.Helper()
	ext := t.TempDir()
	s, err := NewSession(Config{Root: root, DataDir: t.TempDir(), SessionID: "edit-test"},
		&protocol.InitializeParams{InitializationOptions: map[string]any{"externalRoots": []string{ext}}})
	require.NoError(t, err)
	return s, ext
}

// editTestRun calls method with params as the server would.
func editTestRun(t *testing.T, ctx context.Context, s *Session, method string, params any) (json.RawMessage, *rpc.Error) {
	t.Helper()
	b, err := json.Marshal(params)
	require.NoError(t, err)
	res, err := mustLookup(method).Call(ctx, s, rpc.NewCall(method, json.RawMessage(`1`), b, nil))
	if err != nil {
		return nil, rpc.AsError(err)
	}
	out, err := json.Marshal(res)
	require.NoError(t, err)
	return out, nil
}

// editTestFile writes content to root/name, marks every line visible as a
// Read would, and returns its absolute path and tag.
func editTestFile(t *testing.T, s *Session, name, content string) (string, string) {
	t.Helper()
	abs := filepath.Join(s.Roots.First(), name)
	require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
	require.NoError(t, os.WriteFile(abs, []byte(content), 0o644))
	tag := sourceset.TagOf([]byte(content))
	s.Sources.Add(abs, tag, 1, strings.Count(content, "\n")+1)
	return abs, tag
}

type editTestOp = map[string]any

func TestEditApplies(t *testing.T) {
	tests := []struct {
		name    string
		content string
		ops     []editTestOp
		want    string
	}{
		{"replace one", "a\nb\nc\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"B"}}}, "a\nB\nc\n"},
		{"replace range by more", "a\nb\nc\nd\n", []editTestOp{{"op": "replace", "start": 2, "end": 3, "lines": []string{"x", "y", "z"}}}, "a\nx\ny\nz\nd\n"},
		{"replace with nothing", "a\nb\nc\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{}}}, "a\nc\n"},
		{"delete", "a\nb\nc\n", []editTestOp{{"op": "delete", "start": 1, "end": 2}}, "c\n"},
		{"delete all", "a\nb\n", []editTestOp{{"op": "delete", "start": 1, "end": 2}}, ""},
		{"insert before first", "a\n", []editTestOp{{"op": "insert", "start": 0, "lines": []string{"0"}}}, "0\na\n"},
		{"insert after last", "a\nb\n", []editTestOp{{"op": "insert", "start": 2, "lines": []string{"c"}}}, "a\nb\nc\n"},
		{"insert after last, no final newline", "a\nb", []editTestOp{{"op": "insert", "start": 2, "lines": []string{"c"}}}, "a\nb\nc"},
		{"replace last, no final newline", "a\nb", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"B"}}}, "a\nB"},
		{"delete last, no final newline", "a\nb", []editTestOp{{"op": "delete", "start": 2}}, "a"},
		{"crlf kept", "a\r\nb\r\nc\r\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"x", "y"}}}, "a\r\nx\r\ny\r\nc\r\n"},
		{"crlf no final newline", "a\r\nb", []editTestOp{{"op": "insert", "start": 2, "lines": []string{"c"}}}, "a\r\nb\r\nc"},
		{"mixed keeps untouched endings", "a\r\nb\nc\r\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"B"}}}, "a\r\nB\r\nc\r\n"},
		{"empty file", "", []editTestOp{{"op": "insert", "start": 0, "lines": []string{"x", "y"}}}, "x\ny\n"},
		{"lone cr stays text", "a\rb\nc\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"C"}}}, "a\rb\nC\n"},
		{"several ops, any order", "1\n2\n3\n4\n5\n", []editTestOp{
			{"op": "delete", "start": 5},
			{"op": "insert", "start": 0, "lines": []string{"0"}},
			{"op": "replace", "start": 3, "lines": []string{"three"}},
			{"op": "insert", "start": 1, "lines": []string{"1.5"}},
		}, "0\n1\n1.5\n2\nthree\n4\n"},
		{"insert then replace at one position", "a\nb\nc\n", []editTestOp{
			{"op": "replace", "start": 2, "lines": []string{"B"}},
			{"op": "insert", "start": 1, "lines": []string{"ins"}},
		}, "a\nins\nB\nc\n"},
		{"invalid utf-8 untouched lines kept", "\xff\xfe\nb\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"ü"}}}, "\xff\xfe\nü\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := editTestSession(t, t.TempDir())
			abs, tag := editTestFile(t, s, "f.txt", tc.content)
			raw, rerr := editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": "f.txt", "tag": tag, "ops": tc.ops})
			require.Nil(t, rerr)
			got, err := os.ReadFile(abs)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
			var res wire.EditResult
			require.NoError(t, json.Unmarshal(raw, &res))
			require.Equal(t, sourceset.TagOf([]byte(tc.want)), res.Tag)
			require.Equal(t, "f.txt", res.Path)
			require.True(t, strings.HasPrefix(res.Content, "[f.txt#"+res.Tag+"]\n"), res.Content)
		})
	}
}

func TestEditResultShowsContextAndExtendsSourceSet(t *testing.T) {
	s, _ := editTestSession(t, t.TempDir())
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		b.WriteString("line" + itoa(i) + "\n")
	}
	abs := filepath.Join(s.Roots.First(), "f.txt")
	require.NoError(t, os.WriteFile(abs, []byte(b.String()), 0o644))
	tag := sourceset.TagOf([]byte(b.String()))
	s.Sources.Add(abs, tag, 1, 10) // lines 11..20 never shown

	raw, rerr := editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": "f.txt", "tag": tag, "ops": []editTestOp{
		{"op": "replace", "start": 5, "lines": []string{"five", "five.5"}},
	}})
	require.Nil(t, rerr)
	var res wire.EditResult
	require.NoError(t, json.Unmarshal(raw, &res))
	require.Equal(t, "[f.txt#"+res.Tag+"]\n3:line3\n4:line4\n5:five\n6:five.5\n7:line6\n8:line7\n", res.Content)
	require.Equal(t, 21, res.TotalLines)

	// Old lines 1..10 shifted (11 is old 10); shown lines; old 11.. still unseen.
	for n := 1; n <= 11; n++ {
		require.True(t, s.Sources.Has(abs, res.Tag, n), "line %d", n)
	}
	require.False(t, s.Sources.Has(abs, res.Tag, 12))
	require.Empty(t, s.Sources.Spans(abs, tag), "the old version is forgotten")

	_, rerr = editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": "f.txt", "tag": res.Tag, "ops": []editTestOp{
		{"op": "delete", "start": 11, "end": 12},
	}})
	require.NotNil(t, rerr)
	require.Equal(t, rpc.LineNotVisible, rerr.Kind)
	require.Equal(t, map[string]any{"lines": []int{12}}, rerr.Data)
}

func TestEditErrorsLeaveFileUnchanged(t *testing.T) {
	const content = "a\nb\nc\n"
	big := strings.Repeat("x", limits.EditMaxBytes)
	manyOps := make([]editTestOp, limits.EditMaxOps+1)
	for i := range manyOps {
		manyOps[i] = editTestOp{"op": "insert", "start": 0, "lines": []string{"x"}}
	}
	tests := []struct {
		name     string
		path     string
		tag      string // "" = current
		ops      any
		visible  int // lines 1..visible are in the source set
		wantKind string
		wantData map[string]any
	}{
		{"stale tag", "f.txt", "0000", []editTestOp{{"op": "delete", "start": 1}}, 3, rpc.StaleTag, map[string]any{"tag": sourceset.TagOf([]byte(content))}},
		{"not visible", "f.txt", "", []editTestOp{{"op": "replace", "start": 1, "end": 3, "lines": []string{}}}, 1, rpc.LineNotVisible, map[string]any{"lines": []int{2, 3}}},
		{"insert touches its line", "f.txt", "", []editTestOp{{"op": "insert", "start": 2, "lines": []string{"x"}}}, 1, rpc.LineNotVisible, map[string]any{"lines": []int{2}}},
		{"overlap", "f.txt", "", []editTestOp{{"op": "delete", "start": 1, "end": 2}, {"op": "replace", "start": 2, "lines": []string{"x"}}}, 3, rpc.InvalidArgument, nil},
		{"insert on a replaced line", "f.txt", "", []editTestOp{{"op": "insert", "start": 2, "lines": []string{"x"}}, {"op": "replace", "start": 2, "lines": []string{"x"}}}, 3, rpc.InvalidArgument, nil},
		{"two inserts at one position", "f.txt", "", []editTestOp{{"op": "insert", "start": 0, "lines": []string{"x"}}, {"op": "insert", "start": 0, "lines": []string{"y"}}}, 3, rpc.InvalidArgument, nil},
		{"too many ops", "f.txt", "", manyOps, 3, rpc.InvalidArgument, nil},
		{"too many bytes", "f.txt", "", []editTestOp{{"op": "replace", "start": 1, "lines": []string{big}}}, 3, rpc.InvalidArgument, nil},
		{"past the end", "f.txt", "", []editTestOp{{"op": "delete", "start": 3, "end": 4}}, 3, rpc.InvalidArgument, nil},
		{"insert past the end", "f.txt", "", []editTestOp{{"op": "insert", "start": 4, "lines": []string{"x"}}}, 3, rpc.InvalidArgument, nil},
		{"end before start", "f.txt", "", []editTestOp{{"op": "delete", "start": 2, "end": 1}}, 3, rpc.InvalidArgument, nil},
		{"unknown op", "f.txt", "", []editTestOp{{"op": "move", "start": 1}}, 3, rpc.InvalidArgument, nil},
		{"line break in a line", "f.txt", "", []editTestOp{{"op": "replace", "start": 1, "lines": []string{"x\ny"}}}, 3, rpc.InvalidArgument, nil},
		{"no ops", "f.txt", "", []editTestOp{}, 3, rpc.InvalidArgument, nil},
		{"bad tag", "f.txt", "ABCD", []editTestOp{{"op": "delete", "start": 1}}, 3, rpc.InvalidArgument, nil},
		{"missing file", "nope.txt", "", []editTestOp{{"op": "delete", "start": 1}}, 3, rpc.NotFound, nil},
		{"directory", "dir", "", []editTestOp{{"op": "delete", "start": 1}}, 3, rpc.IsDirectory, nil},
		{"outside the roots", "/etc/hostname", "", []editTestOp{{"op": "delete", "start": 1}}, 3, rpc.PermissionDenied, nil},
		{"external root", "EXT", "", []editTestOp{{"op": "delete", "start": 1}}, 3, rpc.PermissionDenied, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ext := editTestSession(t, t.TempDir())
			abs := filepath.Join(s.Roots.First(), "f.txt")
			require.NoError(t, os.WriteFile(abs, []byte(content), 0o644))
			require.NoError(t, os.Mkdir(filepath.Join(s.Roots.First(), "dir"), 0o755))
			extFile := filepath.Join(ext, "e.txt")
			require.NoError(t, os.WriteFile(extFile, []byte(content), 0o644))
			tag := sourceset.TagOf([]byte(content))
			s.Sources.Add(abs, tag, 1, tc.visible)
			s.Sources.Add(extFile, tag, 1, 3)
			if tc.tag == "" {
				tc.tag = tag
			}
			if tc.path == "EXT" {
				tc.path = extFile
			}
			_, rerr := editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": tc.path, "tag": tc.tag, "ops": tc.ops})
			require.NotNil(t, rerr)
			require.Equal(t, tc.wantKind, rerr.Kind, rerr.Message)
			if tc.wantData != nil {
				require.Equal(t, tc.wantData, rerr.Data)
			}
			for _, p := range []string{abs, extFile} {
				got, err := os.ReadFile(p)
				require.NoError(t, err)
				require.Equal(t, content, string(got))
			}
			requireNoEditTemp(t, s.Roots.First())
		})
	}
}

func TestEditKeepsMode(t *testing.T) {
	s, _ := editTestSession(t, t.TempDir())
	abs, tag := editTestFile(t, s, "run.sh", "#!/bin/sh\necho hi\n")
	require.NoError(t, os.Chmod(abs, 0o750))
	_, rerr := editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": "run.sh", "tag": tag,
		"ops": []editTestOp{{"op": "replace", "start": 2, "lines": []string{"echo bye"}}}})
	require.Nil(t, rerr)
	fi, err := os.Stat(abs)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o750), fi.Mode().Perm())
}

// Two edits against one tag: exactly one wins, the other gets STALE_TAG
// with the winner's tag, and the file holds the winner's change.
func TestEditConcurrentSameTag(t *testing.T) {
	s, _ := editTestSession(t, t.TempDir())
	abs, tag := editTestFile(t, s, "f.txt", "a\nb\nc\n")
	const n = 8
	var wg sync.WaitGroup
	results := make([]json.RawMessage, n)
	errs := make([]*rpc.Error, n)
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": "f.txt", "tag": tag,
				"ops": []editTestOp{{"op": "replace", "start": 2, "lines": []string{"by " + itoa(i)}}}})
		})
	}
	wg.Wait()
	winner := -1
	for i := range n {
		if errs[i] == nil {
			require.Equal(t, -1, winner, "only one edit may win")
			winner = i
		}
	}
	require.NotEqual(t, -1, winner)
	got, err := os.ReadFile(abs)
	require.NoError(t, err)
	require.Equal(t, "a\nby "+itoa(winner)+"\nc\n", string(got))
	for i := range n {
		if i != winner {
			require.Equal(t, rpc.StaleTag, errs[i].Kind)
			require.Equal(t, map[string]any{"tag": sourceset.TagOf(got)}, errs[i].Data)
		}
	}
}

// A line the edit result had to clip is not editable afterwards.
func TestEditClippedResultLineNotEditable(t *testing.T) {
	s, _ := editTestSession(t, t.TempDir())
	_, tag := editTestFile(t, s, "f.txt", "a\nb\n")
	long := strings.Repeat("é", limits.MaxLineChars+1)
	raw, rerr := editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": "f.txt", "tag": tag,
		"ops": []editTestOp{{"op": "insert", "start": 1, "lines": []string{long}}}})
	require.Nil(t, rerr)
	var res wire.EditResult
	require.NoError(t, json.Unmarshal(raw, &res))
	require.Equal(t, []int{2}, res.ClippedLines)
	require.Contains(t, res.Content, "\n2:"+strings.Repeat("é", limits.MaxLineChars)+"\n")
	require.Contains(t, res.Notice, "1 line clipped")

	_, rerr = editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": "f.txt", "tag": res.Tag,
		"ops": []editTestOp{{"op": "delete", "start": 2}}})
	require.NotNil(t, rerr)
	require.Equal(t, rpc.LineNotVisible, rerr.Kind)
	_, rerr = editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": "f.txt", "tag": res.Tag,
		"ops": []editTestOp{{"op": "delete", "start": 3}}})
	require.Nil(t, rerr, "the unclipped neighbour stays editable")
}

// An edit result is bounded like a Read: lines past the budget are not
// shown and not editable.
func TestEditResultBounded(t *testing.T) {
	s, _ := editTestSession(t, t.TempDir())
	_, tag := editTestFile(t, s, "f.txt", "a\n")
	lines := make([]string, limits.SearchBudgetLines+500)
	for i := range lines {
		lines[i] = "n" + itoa(i)
	}
	raw, rerr := editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": "f.txt", "tag": tag,
		"ops": []editTestOp{{"op": "insert", "start": 1, "lines": lines}}})
	require.Nil(t, rerr)
	var res wire.EditResult
	require.NoError(t, json.Unmarshal(raw, &res))
	require.Equal(t, limits.SearchBudgetLines, strings.Count(res.Content, "\n")-1)
	require.Contains(t, res.Notice, "offset="+itoa(limits.SearchBudgetLines+1))
	abs := filepath.Join(s.Roots.First(), "f.txt")
	require.True(t, s.Sources.Has(abs, res.Tag, limits.SearchBudgetLines))
	require.False(t, s.Sources.Has(abs, res.Tag, limits.SearchBudgetLines+1))
}

func TestEditCancelled(t *testing.T) {
	s, _ := editTestSession(t, t.TempDir())
	abs, tag := editTestFile(t, s, "f.txt", "a\nb\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, rerr := editTestRun(t, ctx, s, "tools/edit", map[string]any{"path": "f.txt", "tag": tag,
		"ops": []editTestOp{{"op": "delete", "start": 1}}})
	require.NotNil(t, rerr)
	require.Equal(t, rpc.Cancelled, rerr.Kind)
	got, err := os.ReadFile(abs)
	require.NoError(t, err)
	require.Equal(t, "a\nb\n", string(got))
	requireNoEditTemp(t, s.Roots.First())
}

func requireNoEditTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		require.False(t, strings.HasSuffix(e.Name(), ".tmp"), "leftover %s", e.Name())
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// BenchmarkEditLargeFile edits the first line of a 64 MB file: two passes
// over the file (tag check, then copy through a temporary file, fsync, rename).
func BenchmarkEditLargeFile(b *testing.B) {
	root := b.TempDir()
	s, err := NewSession(Config{Root: root, DataDir: b.TempDir(), SessionID: "edit-bench"}, &protocol.InitializeParams{})
	require.NoError(b, err)
	abs := filepath.Join(root, "big.txt")
	line := strings.Repeat("0123456789", 9) + "abcdefghi\n"
	content := []byte(strings.Repeat(line, 64<<20/len(line)))
	require.NoError(b, os.WriteFile(abs, content, 0o644))
	tag := sourceset.TagOf(content)
	s.Sources.Add(abs, tag, 1, 1)
	b.SetBytes(int64(len(content)))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		params, _ := json.Marshal(map[string]any{"path": "big.txt", "tag": tag,
			"ops": []editTestOp{{"op": "replace", "start": 1, "lines": []string{"edit " + strconv.Itoa(i)}}}})
		res, err := editCall(context.Background(), s, rpc.NewCall("tools/edit", json.RawMessage(`1`), params, nil))
		require.NoError(b, err)
		tag = res.(*wire.EditResult).Tag
	}
}
