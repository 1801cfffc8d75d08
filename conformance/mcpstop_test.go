package conformance

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMCP_SIGTERMIsNotAnError (SPEC §1): a SIGTERM is a requested end, so
// the server logs nothing at ERROR level about it (the go-sdk's Run logged
// `level=ERROR msg="server run cancelled" error="context canceled"`) and
// exits 0.
func TestMCP_SIGTERMIsNotAnError(t *testing.T) {
	m := mcpStart(t, mcpOptions{})
	m.ok(t, "bash", map[string]any{"command": "echo hi"})
	require.NoError(t, m.cmd.Process.Signal(syscall.SIGTERM))
	code := m.closeAndWait(t)
	require.Equal(t, 0, code, "stderr: %s", m.stderr.String())
	require.NotContains(t, m.stderr.String(), "level=ERROR")
	require.NotContains(t, m.stderr.String(), "context canceled")
}
