package conformance

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDeletedWorkspaceRoot (issue 16 item 5): the user deletes the workspace
// root while the server runs. Bash with the default cwd answers NOT_FOUND
// naming the root (before the fix: IO_ERROR "fork/exec /usr/bin/bash: no
// such file or directory", blaming bash), and Write refuses with NOT_FOUND
// instead of recreating the deleted tree.
//
// Checks SPEC §3, §8.
func TestDeletedWorkspaceRoot(t *testing.T) {
	s := start(t)
	require.NoError(t, os.RemoveAll(s.Root))

	e := s.callErr(t, "tools/bash", map[string]any{"command": "echo hi"})
	require.Equal(t, "NOT_FOUND", e.Kind, "%v", e)
	require.Contains(t, e.Message, s.Root)
	require.NotContains(t, e.Message, "bash: no such file")

	for _, p := range []string{"new.txt", "a/b/c.txt"} {
		e = s.callErr(t, "tools/write", map[string]any{"path": p, "content": "x\n"})
		require.Equal(t, "NOT_FOUND", e.Kind, "write %s: %v", p, e)
		require.Contains(t, e.Message, s.Root)
		_, err := os.Stat(s.Root)
		require.True(t, os.IsNotExist(err), "write %s recreated the deleted root", p)
	}
}
