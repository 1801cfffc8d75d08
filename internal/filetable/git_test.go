//go:build linux && !toolrpc_portable

package filetable

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/walk"
)

// git runs git in dir.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
}

// TestTableGitCheckout switches a real repository between two branches that
// differ in thousands of files, directories and ignore files, and removes a
// large subtree with rm -rf, listing after each step.
func TestTableGitCheckout(t *testing.T) {
	root := tree(t, nil)
	git(t, root, "init", "-q", "-b", "one")
	for d := range 40 {
		for f := range 50 {
			p := filepath.Join(root, fmt.Sprintf("pkg%02d", d), fmt.Sprintf("sub%d", f%5), fmt.Sprintf("f%03d.go", f))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(p), 0o644))
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.out\n"), 0o644))
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "one")
	git(t, root, "checkout", "-q", "-b", "two")
	git(t, root, "rm", "-q", "-r", "pkg0*", "pkg1*")
	for d := range 30 {
		p := filepath.Join(root, "new", fmt.Sprintf("n%02d", d), "x.go")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "pkg20", ".gitignore"), []byte("sub1/\n"), 0o644))
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "two")

	tab := newTable(root, (&recLog{}).logf)
	t.Cleanup(tab.Close)
	same(t, tab, root, root)
	git(t, root, "checkout", "-q", "one")
	require.Len(t, same(t, tab, root, root), 2001)
	same(t, tab, root, filepath.Join(root, "pkg20"))
	git(t, root, "checkout", "-q", "two")
	require.Len(t, same(t, tab, root, root), 1000-10+30+1+1)
	require.NoError(t, os.RemoveAll(filepath.Join(root, "pkg2")+"5"))
	require.NoError(t, exec.Command("rm", "-rf", filepath.Join(root, "new")).Run())
	got := same(t, tab, root, root)
	for _, f := range got {
		require.False(t, strings.HasPrefix(f.Rel, "new/") || strings.HasPrefix(f.Rel, "pkg25/"), f.Rel)
	}
	st := tab.Stats()
	t.Logf("%+v", st)
	require.Equal(t, 1, st.Builds, "only the root's own ignore file changes force a whole walk")
	_, ok, _ := tab.List(context.Background(), Query{Start: filepath.Join(root, "new")})
	require.False(t, ok)
}

// TestTableConcurrent lists from several goroutines while the tree changes,
// then requires the table to agree with a cold walk (run with -race).
func TestTableConcurrent(t *testing.T) {
	root := tree(t, map[string]string{"a/x": "", "b/y": ""})
	s := NewSet([]string{root}, (&recLog{}).logf)
	t.Cleanup(s.Close)
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := s.Walk(context.Background(), walk.Options{Start: root, Boundary: root}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 200 {
		p := filepath.Join(root, fmt.Sprintf("d%d", i%7), fmt.Sprintf("f%d", i))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
		if i%20 == 0 {
			require.NoError(t, os.RemoveAll(filepath.Join(root, fmt.Sprintf("d%d", (i/20)%7))))
		}
	}
	close(done)
	for range 4 {
		require.NoError(t, <-errs)
	}
	want, err := walk.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
	require.NoError(t, err)
	got, err := s.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
	require.NoError(t, err)
	require.Equal(t, want, all(got))
}
