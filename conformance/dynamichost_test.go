package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDynamicHostEmptyArrays (issue 16 item 7, SPEC §1): a Lua host (Neovim)
// encodes an empty table as [], so capabilities: [], initializationOptions:
// [] and a bash env: [] are taken for {}. Before the fix each was -32602.
func TestDynamicHostEmptyArrays(t *testing.T) {
	s := start(t, withEnv("XDG_STATE_HOME="+t.TempDir()), withInitParams(func(p map[string]any) {
		p["capabilities"] = []any{}
		p["initializationOptions"] = []any{}
	}))
	r := callBash(t, s, map[string]any{"command": "echo ok", "env": []any{}})
	require.Equal(t, "ok\n", r.Stdout)

	e := s.callErr(t, "tools/bash", map[string]any{"command": "echo ok", "env": []any{"A=b"}})
	require.Equal(t, "INVALID_ARGUMENT", e.Kind, "a non-empty array is still not an object: %v", e)
}
