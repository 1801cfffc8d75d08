package conformance

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// runNodeChecks runs script of the npm package dir (installed with npmCI)
// against the server under test. The script prints a JSON summary: ok,
// checks by name, the server's stderr tail, and members of its own, which
// are decoded into extra when it is not nil. Every check must pass, the
// summary must be ok and the script must exit 0. It returns the number of
// checks.
func runNodeChecks(t *testing.T, dir, script string, extra any) int {
	t.Helper()
	node := npmCI(t, dir)
	cmd := exec.Command(node, filepath.Join(dir, script), bin)
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
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &summary), "%s printed no JSON summary (%v); stderr:\n%s\nstdout:\n%s", script, runErr, stderr.String(), stdout.String())
	if extra != nil {
		require.NoError(t, json.Unmarshal(stdout.Bytes(), extra))
	}
	var failed []string
	for _, c := range summary.Checks {
		if !c.OK {
			failed = append(failed, c.Name+": "+string(c.Detail))
		}
	}
	if summary.ServerStderr != "" {
		t.Logf("server stderr (tail):\n%s", summary.ServerStderr)
	}
	require.Empty(t, failed, "failed checks of %s/%s", dir, script)
	require.True(t, summary.OK, "%s summary not ok: %s", script, stdout.String())
	require.NoError(t, runErr, "%s exit status; stderr:\n%s", script, stderr.String())
	return len(summary.Checks)
}
