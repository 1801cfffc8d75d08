//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKeepHistory checks that what keepHistory keeps is a repository the
// host can read once the git directory's objects and refs are gone, and
// that a symlinked object directory is not followed.
func TestKeepHistory(t *testing.T) {
	ws := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", ws, "-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return string(out)
	}
	git("init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a"), []byte("a\n"), 0o644))
	git("add", "a")
	git("commit", "-qm", "one")
	gd := filepath.Join(ws, ".git")
	secret := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(secret, "key"), []byte("k"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(gd, "objects", "zz")))
	require.True(t, keepHistory(gd))
	git("commit", "-qm", "two", "--allow-empty")
	require.True(t, keepHistory(gd), "a second visit adds the new commit")
	_, err := os.Lstat(filepath.Join(gd, HistoryDir, "objects", "zz", "key"))
	require.Error(t, err, "the symlinked directory was followed")
	for _, d := range []string{"objects", "refs", "logs", "HEAD", "index"} {
		require.NoError(t, os.RemoveAll(filepath.Join(gd, d)))
	}
	out, err := exec.Command("git", "--git-dir="+filepath.Join(gd, HistoryDir), "log", "--format=%s").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "two\none", strings.TrimSpace(string(out)))
}
