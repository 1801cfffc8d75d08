package sessionconf

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

func TestResolve(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	wd, err := os.Getwd()
	require.NoError(t, err)
	tests := []struct {
		name    string
		d       Defaults
		p       protocol.InitializeParams
		want    Conf
		wantBad bool
	}{
		{"defaults", Defaults{SessionID: "s1"}, protocol.InitializeParams{},
			Conf{SessionID: "s1", DataDir: filepath.Join(state, "toolrpc"), Workspace: []string{wd}}, false},
		{"params override", Defaults{Root: "/r", DataDir: "/d", SessionID: "s1"},
			protocol.InitializeParams{RootURI: "file:///w", InitializationOptions: map[string]any{"sessionId": "s2", "dataDir": "/e", "externalRoots": []string{"/x"}}},
			Conf{SessionID: "s2", DataDir: "/e", Workspace: []string{"/w"}, External: []string{"/x"}}, false},
		{"folders before rootUri", Defaults{SessionID: "s"},
			protocol.InitializeParams{RootURI: "file:///w", WorkspaceFolders: []protocol.WorkspaceFolder{{URI: "file:///a"}, {URI: "file:///b"}}},
			Conf{SessionID: "s", DataDir: filepath.Join(state, "toolrpc"), Workspace: []string{"/a", "/b"}}, false},
		{"command line root", Defaults{Root: "/r", SessionID: "s"}, protocol.InitializeParams{},
			Conf{SessionID: "s", DataDir: filepath.Join(state, "toolrpc"), Workspace: []string{"/r"}}, false},
		{"dot id", Defaults{SessionID: ".."}, protocol.InitializeParams{}, Conf{}, true},
		{"slash id", Defaults{}, protocol.InitializeParams{InitializationOptions: map[string]any{"sessionId": "a/b"}}, Conf{}, true},
		{"bad options", Defaults{}, protocol.InitializeParams{InitializationOptions: map[string]any{"dataDir": 7}}, Conf{}, true},
		{"not a file URI", Defaults{SessionID: "s"}, protocol.InitializeParams{RootURI: "http://x/y"}, Conf{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(tc.d, &tc.p)
			if tc.wantBad {
				var bad *Error
				require.True(t, errors.As(err, &bad), "%v", err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestResolveRandomID(t *testing.T) {
	a, err := Resolve(Defaults{DataDir: "/d"}, &protocol.InitializeParams{})
	require.NoError(t, err)
	b, err := Resolve(Defaults{DataDir: "/d"}, &protocol.InitializeParams{})
	require.NoError(t, err)
	require.Regexp(t, `^[0-9a-f]{16}$`, a.SessionID)
	require.NotEqual(t, a.SessionID, b.SessionID)
}
