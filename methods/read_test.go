//go:build unix

package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// readTestSession returns a session on a fresh workspace with the given
// external roots.
func readTestSession(t testing.TB, external ...string) *Session {
	t.Helper()
	if external == nil {
		external = []string{}
	}
	s, err := NewSession(Config{Root: t.TempDir(), DataDir: t.TempDir(), SessionID: "read-test"},
		&protocol.InitializeParams{InitializationOptions: map[string]any{"externalRoots": external}})
	require.NoError(t, err)
	return s
}

// readTestCall runs tools/read with raw JSON params.
func readTestCall(t testing.TB, s *Session, params string) (*wire.ReadResult, *rpc.Error) {
	t.Helper()
	res, err := readCall(context.Background(), s, rpc.NewCall("tools/read", json.RawMessage(`1`), json.RawMessage(params), nil))
	if err != nil {
		return nil, rpc.AsError(err)
	}
	return res.(*wire.ReadResult), nil
}

func readTestWrite(t testing.TB, s *Session, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(s.roots.First(), name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, content, 0o644))
	return p
}

func TestReadParams(t *testing.T) {
	s := readTestSession(t)
	readTestWrite(t, s, "a.txt", []byte("a\n"))
	tests := []struct {
		name   string
		params string
	}{
		{"null params", `null`},
		{"missing path", `{}`},
		{"empty path", `{"path":""}`},
		{"path not a string", `{"path":5}`},
		{"NUL in path", `{"path":"a\u0000b"}`},
		{"offset zero", `{"path":"a.txt","offset":0}`},
		{"negative offset", `{"path":"a.txt","offset":-3}`},
		{"offset string", `{"path":"a.txt","offset":"2"}`},
		{"fractional offset", `{"path":"a.txt","offset":1.5}`},
		{"limit zero", `{"path":"a.txt","limit":0}`},
		{"limit too large", fmt.Sprintf(`{"path":"a.txt","limit":%d}`, limits.ReadMaxLimit+1)},
		{"limit 5000", `{"path":"a.txt","limit":5000}`},
		{"unknown field", `{"path":"a.txt","lines":3}`},
		{"not an object", `["a.txt"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, gotErr := readTestCall(t, s, tc.params)
			require.NotNil(t, gotErr)
			require.Equal(t, rpc.InvalidArgument, gotErr.Kind)
			require.Equal(t, int64(rpc.CodeInvalidParams), gotErr.Code)
		})
	}
	t.Run("limits at the edges are accepted", func(t *testing.T) {
		for _, p := range []string{`{"path":"a.txt","limit":1}`, fmt.Sprintf(`{"path":"a.txt","limit":%d}`, limits.ReadMaxLimit), `{"path":"a.txt","offset":1,"limit":null}`} {
			_, gotErr := readTestCall(t, s, p)
			require.Nil(t, gotErr, p)
		}
	})
}

func TestReadErrors(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s\n"), 0o644))
	s := readTestSession(t, "/dev")
	root := s.roots.First()
	readTestWrite(t, s, "src/main.go", []byte("package main\n"))
	readTestWrite(t, s, "src/mains.go", []byte("package main\n"))
	readTestWrite(t, s, "src/util.go", []byte("package main\n"))
	readTestWrite(t, s, "logo.png", []byte("not really an image\n"))
	readTestWrite(t, s, "nul.txt", []byte("abc\x00def\n"))
	readTestWrite(t, s, "ctrl.txt", []byte(strings.Repeat("\x01\x02a", 100)))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "escape.txt")))
	require.NoError(t, os.Symlink("logo.png", filepath.Join(root, "logo-link")))
	tests := []struct {
		name     string
		path     string
		wantKind string
		wantData map[string]any // subset of data
	}{
		{"directory", "src", rpc.IsDirectory, nil},
		{"workspace root", ".", rpc.IsDirectory, nil},
		{"missing with suggestions", "src/mian.go", rpc.NotFound,
			map[string]any{"path": "src/mian.go", "suggestions": []any{"src/main.go", "src/mains.go"}}},
		{"missing in missing dir", "nodir/x.go", rpc.NotFound, map[string]any{"suggestions": []any{}}},
		{"fifo refused without blocking", "pipe", rpc.InvalidArgument, map[string]any{"fileType": "named pipe"}},
		{"device refused", "/dev/null", rpc.InvalidArgument, map[string]any{"path": "/dev/null", "fileType": "character device"}},
		{"binary extension", "logo.png", rpc.BinaryContent,
			map[string]any{"path": "logo.png", "fileBytes": float64(20), "reason": "extension .png"}},
		{"binary extension through a link", "logo-link", rpc.BinaryContent, map[string]any{"reason": "extension .png"}},
		{"NUL byte", "nul.txt", rpc.BinaryContent, map[string]any{"reason": "NUL byte at offset 3", "fileBytes": float64(8)}},
		{"control bytes", "ctrl.txt", rpc.BinaryContent, map[string]any{"reason": "67% non-printable bytes in the first 300"}},
		{"dotdot escape", "../x.txt", rpc.PermissionDenied, nil},
		{"absolute outside", filepath.Join(outside, "secret.txt"), rpc.PermissionDenied, nil},
		{"symlink pointing outside", "escape.txt", rpc.PermissionDenied, nil},
		{"NUL in path", "a\x00b", rpc.InvalidArgument, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params, err := json.Marshal(map[string]any{"path": tc.path})
			require.NoError(t, err)
			_, gotErr := readTestCall(t, s, string(params))
			require.NotNil(t, gotErr)
			require.Equal(t, tc.wantKind, gotErr.Kind, gotErr.Message)
			if tc.wantData != nil {
				b, err := json.Marshal(gotErr.Data)
				require.NoError(t, err)
				var gotData map[string]any
				require.NoError(t, json.Unmarshal(b, &gotData))
				for k, v := range tc.wantData {
					require.Equal(t, v, gotData[k], k)
				}
			}
		})
	}
}

func TestReadRoots(t *testing.T) {
	ext := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ext, "lib.txt"), []byte("ext\n"), 0o644))
	s := readTestSession(t, ext)
	readTestWrite(t, s, "a/b.txt", []byte("ws\n"))
	scratch := s.roots.ScratchDir()
	require.NoError(t, os.MkdirAll(scratch, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(scratch, "spill.log"), []byte("sc\n"), 0o600))
	extEv, err := filepath.EvalSymlinks(ext)
	require.NoError(t, err)
	tests := []struct {
		name, path, wantPath, wantRoot string
	}{
		{"relative", "a/b.txt", "a/b.txt", "workspace"},
		{"absolute inside", filepath.Join(s.roots.First(), "a", "b.txt"), "a/b.txt", "workspace"},
		{"dot segments", "a/../a/./b.txt", "a/b.txt", "workspace"},
		{"external", filepath.Join(ext, "lib.txt"), filepath.Join(extEv, "lib.txt"), "external"},
		{"scratch", filepath.Join(scratch, "spill.log"), filepath.Join(scratch, "spill.log"), "scratch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params, err := json.Marshal(map[string]any{"path": tc.path})
			require.NoError(t, err)
			got, gotErr := readTestCall(t, s, string(params))
			require.Nil(t, gotErr)
			require.Equal(t, tc.wantPath, got.Path)
			require.Equal(t, tc.wantRoot, string(got.Root))
			require.True(t, strings.HasPrefix(got.Content, "["+tc.wantPath+"#"))
		})
	}
}

func TestReadDescription(t *testing.T) {
	d := mustLookup("tools/read").Describe(LSP)
	for _, n := range []int{limits.ReadDefaultLimit, limits.ReadMaxLimit, limits.MaxLineChars, limits.SearchBudgetBytes / limits.KB} {
		require.Contains(t, d, fmt.Sprint(n))
	}
	var schema map[string]any
	require.NoError(t, json.Unmarshal(mustLookup("tools/read").InputSchema, &schema))
}
