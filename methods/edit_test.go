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

	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
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
	abs := filepath.Join(s.roots.First(), name)
	require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
	require.NoError(t, os.WriteFile(abs, []byte(content), 0o644))
	tag := sourceset.TagOf([]byte(content))
	s.sources.Add(abs, tag, 1, strings.Count(content, "\n")+1)
	return abs, tag
}

type editTestOp = map[string]any

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
		wantData any
	}{
		{"stale tag", "f.txt", "0000", []editTestOp{{"op": "delete", "start": 1}}, 3, rpc.StaleTag, wire.StaleTagData{Tag: sourceset.TagOf([]byte(content))}},
		{"not visible", "f.txt", "", []editTestOp{{"op": "replace", "start": 1, "end": 3, "lines": []string{}}}, 1, rpc.LineNotVisible, wire.LineNotVisibleData{Lines: []int{2, 3}}},
		{"insert touches its line", "f.txt", "", []editTestOp{{"op": "insert", "start": 2, "lines": []string{"x"}}}, 1, rpc.LineNotVisible, wire.LineNotVisibleData{Lines: []int{2}}},
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
			abs := filepath.Join(s.roots.First(), "f.txt")
			require.NoError(t, os.WriteFile(abs, []byte(content), 0o644))
			require.NoError(t, os.Mkdir(filepath.Join(s.roots.First(), "dir"), 0o755))
			extFile := filepath.Join(ext, "e.txt")
			require.NoError(t, os.WriteFile(extFile, []byte(content), 0o644))
			tag := sourceset.TagOf([]byte(content))
			s.sources.Add(abs, tag, 1, tc.visible)
			s.sources.Add(extFile, tag, 1, 3)
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
			requireNoEditTemp(t, s.roots.First())
		})
	}
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
			require.Equal(t, wire.StaleTagData{Tag: sourceset.TagOf(got)}, errs[i].Data)
		}
	}
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
