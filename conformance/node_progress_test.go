package conformance

import (
	"testing"
)

// TestNodeWorkDoneProgress runs node/progress.js, a vscode-jsonrpc host that
// declares window.workDoneProgress, accepts window/workDoneProgress/create
// and listens with onProgress on each accepted token, as VS Code's language
// client does, and requires every check of its JSON summary to pass: the
// index build of its root arrives as begin, reports and end.
//
// Checks SPEC §12.
func TestNodeWorkDoneProgress(t *testing.T) {
	runNodeChecks(t, "node", "progress.js", nil)
}
