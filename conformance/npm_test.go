package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// npmMu serialises npm installs: two tests installing into one folder at
// once would corrupt it.
var npmMu sync.Mutex

// npmCI makes sure dir's package-lock.json is installed, running `npm ci`
// when dir/node_modules/.package-lock.json is missing, and returns the path
// of node. A machine without node or npm fails the test: the Node hosts are
// part of "all tests", never skipped.
func npmCI(t *testing.T, dir string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed (apt-get install nodejs npm; .ci/run does it): %v", err)
	}
	npmMu.Lock()
	defer npmMu.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil {
		return node
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm is not installed (apt-get install npm; .ci/run does it): %v", err)
	}
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
	return node
}
