package methods

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

func TestWriteCreatesAndReplaces(t *testing.T) {
	tests := []struct {
		name     string
		existing *string // nil: no file before
		path     string
		content  string
		want     string
		created  bool
		notice   bool
	}{
		{"create with parents", nil, "a/b/c.txt", "hello\n", "hello\n", true, false},
		{"replace", wire.Ptr("old\n"), "f.txt", "new", "new", false, false},
		{"empty", wire.Ptr("old\n"), "f.txt", "", "", false, false},
		{"read content stripped", nil, "f.txt", "[f.txt#1234]\n1:a\n2:b\n", "a\nb\n", true, true},
		{"read window without header", nil, "f.txt", "7:x\n8:\n9:z", "x\n\nz\n", true, true},
		{"crlf file keeps crlf", wire.Ptr("a\r\nb\r\n"), "f.txt", "[f.txt#0000]\n1:a\n2:B\n", "a\r\nB\r\n", false, true},
		{"missing final newline kept", wire.Ptr("a\nb"), "f.txt", "[f.txt#1111]\n1:a\n2:c\n", "a\nc", false, true},
		{"not every line numbered", nil, "f.txt", "1:a\nb\n", "1:a\nb\n", true, false},
		{"numbers not consecutive", nil, "f.txt", "1:a\n3:b\n", "1:a\n3:b\n", true, false},
		{"ini section is not a header", nil, "f.ini", "[core#abcd]\nkey=1\n", "[core#abcd]\nkey=1\n", true, false},
		{"lone header of an empty read", wire.Ptr("x\n"), "f.txt", "[f.txt#0000]\n", "", false, true},
		{"lone header of another tag kept", nil, "f.txt", "[f.txt#abcd]\n", "[f.txt#abcd]\n", true, false},
		{"signed numbers are not prefixes", nil, "f.txt", "+1:a\n", "+1:a\n", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := editTestSession(t, t.TempDir())
			abs := filepath.Join(s.roots.First(), filepath.FromSlash(tc.path))
			if tc.existing != nil {
				require.NoError(t, os.WriteFile(abs, []byte(*tc.existing), 0o600))
			}
			raw, rerr := editTestRun(t, context.Background(), s, "tools/write", map[string]any{"path": tc.path, "content": tc.content})
			require.Nil(t, rerr)
			got, err := os.ReadFile(abs)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
			var res wire.WriteResult
			require.NoError(t, json.Unmarshal(raw, &res))
			require.Equal(t, tc.path, res.Path)
			require.Equal(t, wire.Workspace, res.Root)
			require.Equal(t, sourceset.TagOf(got), res.Tag)
			require.Equal(t, len(got), res.FileBytes)
			require.Equal(t, tc.created, res.Created)
			require.Equal(t, tc.notice, res.Notice != "", res.Notice)
			fi, err := os.Stat(abs)
			require.NoError(t, err)
			if tc.existing != nil {
				require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "mode kept")
			}
			requireNoEditTemp(t, filepath.Dir(abs))
		})
	}
}

func TestWriteRefuses(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		params   map[string]any
		wantKind string
	}{
		{"outside the roots", "/tmp/toolrpc-write-test-outside", nil, rpc.PermissionDenied},
		{"escape by dots", "../escape.txt", nil, rpc.PermissionDenied},
		{"external root", "EXT/new.txt", nil, rpc.PermissionDenied},
		{"directory", "dir", nil, rpc.IsDirectory},
		{"no content", "f.txt", map[string]any{"path": "f.txt"}, rpc.InvalidArgument},
		{"no path", "", map[string]any{"content": "x"}, rpc.InvalidArgument},
		{"nul in path", "a\x00b", nil, rpc.InvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ext := editTestSession(t, t.TempDir())
			require.NoError(t, os.Mkdir(filepath.Join(s.roots.First(), "dir"), 0o755))
			p := strings.Replace(tc.path, "EXT", ext, 1)
			params := tc.params
			if params == nil {
				params = map[string]any{"path": p, "content": "x\n"}
			}
			_, rerr := editTestRun(t, context.Background(), s, "tools/write", params)
			require.NotNil(t, rerr)
			require.Equal(t, tc.wantKind, rerr.Kind, rerr.Message)
			_, err := os.Stat(filepath.Join(ext, "new.txt"))
			require.True(t, os.IsNotExist(err))
			_, err = os.Stat("/tmp/toolrpc-write-test-outside")
			require.True(t, os.IsNotExist(err))
		})
	}
}

func TestWriteScratchIsPrivate(t *testing.T) {
	s, _ := editTestSession(t, t.TempDir())
	p := filepath.Join(s.Scratch.Path(), "notes", "n.txt")
	raw, rerr := editTestRun(t, context.Background(), s, "tools/write", map[string]any{"path": p, "content": "x"})
	require.Nil(t, rerr)
	var res wire.WriteResult
	require.NoError(t, json.Unmarshal(raw, &res))
	require.Equal(t, wire.Scratch, res.Root)
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(filepath.Dir(p))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
}

// Write never puts lines into the source set: an edit after a write needs a Read.
func TestWriteThenEditNeedsRead(t *testing.T) {
	s, _ := editTestSession(t, t.TempDir())
	raw, rerr := editTestRun(t, context.Background(), s, "tools/write", map[string]any{"path": "f.txt", "content": "a\nb\n"})
	require.Nil(t, rerr)
	var res wire.WriteResult
	require.NoError(t, json.Unmarshal(raw, &res))
	_, rerr = editTestRun(t, context.Background(), s, "tools/edit", map[string]any{"path": "f.txt", "tag": res.Tag,
		"ops": []editTestOp{{"op": "delete", "start": 1}}})
	require.NotNil(t, rerr)
	require.Equal(t, rpc.LineNotVisible, rerr.Kind)
}
