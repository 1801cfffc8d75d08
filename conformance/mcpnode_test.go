package conformance

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMCPNodeClient runs mcpnode/client.mjs, an MCP client built on the
// official TypeScript SDK (@modelcontextprotocol/sdk: Client,
// StdioClientTransport, onprogress, an AbortSignal), against `toolrpc mcp`
// and requires every check of its JSON summary to pass: list, read, an
// isError result the SDK validated against the outputSchema, a bash call
// with onprogress, and an abort whose whole tree (a setsid'd child included)
// is dead afterwards. It installs mcpnode/'s package-lock.json when needed
// and fails, never skips, without node.
//
// Checks SPEC §12.
func TestMCPNodeClient(t *testing.T) {
	node := npmCI(t, "mcpnode")
	cmd := exec.Command(node, filepath.Join("mcpnode", "client.mjs"), bin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()

	var summary struct {
		OK     bool `json:"ok"`
		Checks []struct {
			Name   string          `json:"name"`
			OK     bool            `json:"ok"`
			Detail json.RawMessage `json:"detail"`
		} `json:"checks"`
		Tools        []string       `json:"tools"`
		LateProgress map[string]int `json:"lateProgress"`
		ServerStderr string         `json:"serverStderr"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &summary), "client.mjs printed no JSON summary (%v); stderr:\n%s\nstdout:\n%s", runErr, stderr.String(), stdout.String())
	var failed []string
	for _, c := range summary.Checks {
		if !c.OK {
			failed = append(failed, c.Name+": "+string(c.Detail))
		}
	}
	if summary.ServerStderr != "" {
		t.Logf("server stderr (tail):\n%s", summary.ServerStderr)
	}
	require.Empty(t, failed, "failed checks of mcpnode/client.mjs")
	require.True(t, summary.OK, "client.mjs summary not ok: %s", stdout.String())
	require.NoError(t, runErr, "client.mjs exit status; stderr:\n%s", stderr.String())
	require.Equal(t, []string{"bash", "edit", "glob", "grep", "process_list", "process_read", "process_signal", "process_start", "process_write", "read", "write"}, summary.Tools)
	require.Greater(t, len(summary.Checks), 10)
	t.Logf("client.mjs: %d checks passed; progress the SDK dropped as late (typescript-sdk#2580): %v", len(summary.Checks), summary.LateProgress)
}
