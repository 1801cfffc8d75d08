package conformance

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNodeWorkDoneProgress runs node/progress.js, a vscode-jsonrpc host that
// declares window.workDoneProgress, accepts window/workDoneProgress/create
// and listens with onProgress on each accepted token, as VS Code's language
// client does, and requires every check of its JSON summary to pass: the
// index build of its root arrives as begin, reports and end.
//
// Checks SPEC §12.
func TestNodeWorkDoneProgress(t *testing.T) {
	node := npmCI(t, "node")
	cmd := exec.Command(node, filepath.Join("node", "progress.js"), bin)
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
		ServerStderr string `json:"serverStderr"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &summary), "progress.js printed no JSON summary (%v); stderr:\n%s\nstdout:\n%s", runErr, stderr.String(), stdout.String())
	for _, c := range summary.Checks {
		require.True(t, c.OK, "check %s of node/progress.js: %s\nserver stderr:\n%s", c.Name, c.Detail, summary.ServerStderr)
	}
	require.True(t, summary.OK, "progress.js summary: %s", stdout.String())
	require.NoError(t, runErr, "progress.js exit status; stderr:\n%s", stderr.String())
}
