package conformance

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
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
	node := npmCI(t, "node")
	cmd := exec.Command(node, filepath.Join("node", "host.js"), bin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()

	var summary struct {
		OK     bool     `json:"ok"`
		Tools  []string `json:"tools"`
		Checks []struct {
			Name   string          `json:"name"`
			OK     bool            `json:"ok"`
			Detail json.RawMessage `json:"detail"`
		} `json:"checks"`
		Skipped      []string `json:"skipped"`
		ServerStderr string   `json:"serverStderr"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &summary), "host.js printed no JSON summary (%v); stderr:\n%s\nstdout:\n%s", runErr, stderr.String(), stdout.String())
	var failed []string
	for _, c := range summary.Checks {
		if !c.OK {
			failed = append(failed, c.Name+": "+string(c.Detail))
		}
	}
	if summary.ServerStderr != "" {
		t.Logf("server stderr (tail):\n%s", summary.ServerStderr)
	}
	require.Empty(t, failed, "failed checks of node/host.js")
	require.True(t, summary.OK, "host.js summary not ok: %s", stdout.String())
	require.NoError(t, runErr, "host.js exit status; stderr:\n%s", stderr.String())
	require.Empty(t, summary.Skipped, "checks skipped because tools/list lacks them (listed: %s)", strings.Join(summary.Tools, ", "))
	for _, tool := range nodeTools {
		require.Contains(t, summary.Tools, tool)
	}
	t.Logf("host.js: %d checks passed", len(summary.Checks))
}
