package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// tsClientDir is the TypeScript client package (issue 18).
var tsClientDir = filepath.Join("..", "clients", "typescript")

// TestTypeScriptClient runs the TypeScript client's own suite (`npm test` in
// clients/typescript: tsc, then node --test against a real server) with the
// server under test as TOOLRPC_BIN. It runs `npm ci` there first when the
// modules are missing; it never skips.
//
// Checks SPEC §1.
func TestTypeScriptClient(t *testing.T) {
	lockDir(t, tsClientDir)
	npmCI(t, tsClientDir)
	npm, err := exec.LookPath("npm")
	require.NoError(t, err, "npm is not installed (apt-get install npm; .ci/run does it)")
	abs, err := filepath.Abs(bin)
	require.NoError(t, err)
	cmd := exec.Command(npm, "test")
	cmd.Dir = tsClientDir
	cmd.Env = append(os.Environ(), "TOOLRPC_BIN="+abs)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "npm test in clients/typescript:\n%s", out)
	counts := regexp.MustCompile(`(?m)^# (tests|pass|fail|skipped|todo) \d+$`).FindAllString(string(out), -1)
	require.Contains(t, counts, "# fail 0", "%s", out)
	require.Contains(t, counts, "# skipped 0", "%s", out)
	require.Contains(t, counts, "# todo 0", "%s", out)
	t.Logf("npm test: %v", counts)
}
