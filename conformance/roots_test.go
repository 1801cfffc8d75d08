package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// evalDir returns dir with its symlinks evaluated, as the server reports it.
func evalDir(t *testing.T, dir string) string {
	t.Helper()
	ev, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	return ev
}

// TestRootRules checks SPEC §3: path classification and refusals.
func TestRootRules(t *testing.T) {
	root := evalDir(t, t.TempDir())
	second := evalDir(t, t.TempDir())
	ext := evalDir(t, t.TempDir())
	outside := evalDir(t, t.TempDir())
	write := func(p string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o644))
	}
	write(filepath.Join(root, "pkg", "a.go"))
	write(filepath.Join(second, "b.txt"))
	write(filepath.Join(ext, "lib", "c.txt"))
	write(filepath.Join(outside, "secret.txt"))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "leak")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "leakdir")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "gone.txt"), filepath.Join(root, "dangling")))
	require.NoError(t, os.Symlink("pkg/a.go", filepath.Join(root, "link1")))
	require.NoError(t, os.Symlink("link1", filepath.Join(root, "link2")))
	s := start(t, withRoot(root), withExternalRoots(ext), withInitParams(func(p map[string]any) {
		p["workspaceFolders"] = []map[string]any{
			{"uri": "file://" + root, "name": "first"},
			{"uri": "file://" + second, "name": "second"},
		}
	}))
	require.NoError(t, os.MkdirAll(s.ScratchDir, 0o700))
	scratchFile := filepath.Join(s.ScratchDir, "note.log")
	require.NoError(t, os.WriteFile(scratchFile, []byte("x\n"), 0o600))
	scratchEv := filepath.Join(evalDir(t, s.ScratchDir), "note.log")

	t.Run("readable", func(t *testing.T) {
		tests := []struct {
			name, path, wantPath, wantRoot string
		}{
			{"workspace relative", "pkg/a.go", "pkg/a.go", "workspace"},
			{"workspace absolute is shown relative", filepath.Join(root, "pkg", "a.go"), "pkg/a.go", "workspace"},
			{"dot segments inside", "./pkg/../pkg/a.go", "pkg/a.go", "workspace"},
			{"symlink chain inside", "link2", "pkg/a.go", "workspace"},
			{"second workspace folder is absolute", filepath.Join(second, "b.txt"), filepath.Join(second, "b.txt"), "workspace"},
			{"external is absolute", filepath.Join(ext, "lib", "c.txt"), filepath.Join(ext, "lib", "c.txt"), "external"},
			{"scratch is absolute", scratchFile, scratchEv, "scratch"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if strings.Contains(tc.name, "symlink") {
					skipOnWine(t, whySymlink)
				}
				r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": tc.path}))
				require.Equal(t, tc.wantPath, r.Path)
				require.Equal(t, tc.wantRoot, r.Root)
				require.Equal(t, []string{"x"}, readBody(t, r))
			})
		}
	})
	t.Run("refused", func(t *testing.T) {
		tests := []struct {
			name     string
			params   any
			wantCode int64
			wantKind string
		}{
			{"dotdot escape", map[string]any{"path": "../" + filepath.Base(outside) + "/secret.txt"}, -32001, "PERMISSION_DENIED"},
			{"absolute outside", map[string]any{"path": filepath.Join(outside, "secret.txt")}, -32001, "PERMISSION_DENIED"},
			{"/etc/passwd", map[string]any{"path": "/etc/passwd"}, -32001, "PERMISSION_DENIED"},
			{"symlink to a file outside", map[string]any{"path": "leak"}, -32001, "PERMISSION_DENIED"},
			{"through a symlinked dir outside", map[string]any{"path": "leakdir/secret.txt"}, -32001, "PERMISSION_DENIED"},
			{"dangling symlink outside", map[string]any{"path": "dangling"}, -32001, "PERMISSION_DENIED"},
			{"NUL byte", map[string]any{"path": "pkg/a.go\x00.txt"}, -32602, "INVALID_ARGUMENT"},
			{"path of wrong type", map[string]any{"path": 42}, -32602, "INVALID_ARGUMENT"},
			{"negative offset", map[string]any{"path": "pkg/a.go", "offset": -1}, -32602, "INVALID_ARGUMENT"},
			{"limit 5000", map[string]any{"path": "pkg/a.go", "limit": 5000}, -32602, "INVALID_ARGUMENT"},
			{"offset as string", map[string]any{"path": "pkg/a.go", "offset": "3"}, -32602, "INVALID_ARGUMENT"},
			{"unknown field", map[string]any{"path": "pkg/a.go", "lines": 3}, -32602, "INVALID_ARGUMENT"},
			{"missing path", map[string]any{}, -32602, "INVALID_ARGUMENT"},
			{"params not an object", []any{"pkg/a.go"}, -32602, "INVALID_ARGUMENT"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if strings.Contains(tc.name, "symlink") {
					skipOnWine(t, whySymlink)
				}
				e := s.callErr(t, "tools/read", tc.params)
				require.Equal(t, tc.wantCode, e.Code, e.Message)
				require.Equal(t, tc.wantKind, e.Kind, e.Message)
				require.NotContains(t, string(e.Data), "secret", "nothing outside the roots leaks")
				// The server keeps serving after every refusal.
				r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "pkg/a.go"}))
				require.Equal(t, "pkg/a.go", r.Path)
			})
		}
	})
	t.Run("raw NUL escape on the wire", func(t *testing.T) {
		raw := json.RawMessage(`{"path":"pkg\u0000a.go"}`)
		e := s.callErr(t, "tools/read", raw)
		require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	})
}
