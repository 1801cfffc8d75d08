package conformance

import (
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
	var summary struct {
		Tools        []string       `json:"tools"`
		LateProgress map[string]int `json:"lateProgress"`
	}
	n := runNodeChecks(t, "mcpnode", "client.mjs", &summary)
	require.Equal(t, []string{"bash", "edit", "glob", "grep", "process_list", "process_read", "process_signal", "process_start", "process_write", "read", "write"}, summary.Tools)
	require.Greater(t, n, 10)
	t.Logf("client.mjs: %d checks passed; progress the SDK dropped as late (typescript-sdk#2580): %v", n, summary.LateProgress)
}
