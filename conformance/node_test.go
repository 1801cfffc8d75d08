package conformance

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// nodeTools are the tools every check of node/host.js needs; the contract
// (SPEC §1) requires all of them, so a skipped one fails the test.
var nodeTools = []string{"tools/read", "tools/grep", "tools/bash"}

// TestNodeHost runs node/host.js, a vscode-jsonrpc host (StreamMessageReader/
// StreamMessageWriter, onProgress, CancellationToken), against the server
// under test and requires every check of its JSON summary to pass. It runs
// `npm ci` in node/ first when its modules are missing; it never skips.
//
// Checks SPEC §1, §6.4, §6.6.
func TestNodeHost(t *testing.T) {
	var summary struct {
		Tools   []string `json:"tools"`
		Skipped []string `json:"skipped"`
	}
	n := runNodeChecks(t, "node", "host.js", &summary)
	require.Empty(t, summary.Skipped, "checks skipped because tools/list lacks them (listed: %s)", strings.Join(summary.Tools, ", "))
	for _, tool := range nodeTools {
		require.Contains(t, summary.Tools, tool)
	}
	t.Logf("host.js: %d checks passed", n)
}
