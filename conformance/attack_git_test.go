package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEscape_GitCommondir checks SPEC §14 (issue 46 row 12): a command
// cannot point .git/commondir at a copy with its own config and hooks
// (testdata/attacks/git-commondir.txtar).
func TestEscape_GitCommondir(t *testing.T) { runAttack(t, "git-commondir") }

// TestEscape_GitSubmoduleGitdir checks SPEC §14 (issue 46 row 13): a
// submodule's gitdir (.git/modules/sub: config, hooks) is protected like the
// root's (testdata/attacks/git-submodule-gitdir.txtar).
func TestEscape_GitSubmoduleGitdir(t *testing.T) { runAttack(t, "git-submodule-gitdir") }

// TestEscape_GitSubmoduleDotGitFile checks SPEC §14 (issue 46 row 13): a
// submodule's .git file cannot be rewritten to a gitdir of the command's
// choosing (testdata/attacks/git-submodule-dotgit-file.txtar).
func TestEscape_GitSubmoduleDotGitFile(t *testing.T) { runAttack(t, "git-submodule-dotgit-file") }

// TestEscape_GitHooksPath checks SPEC §14 (issue 46 row 14): the directory
// core.hooksPath names inside the workspace (husky's .husky) is protected
// (testdata/attacks/git-hookspath.txtar).
func TestEscape_GitHooksPath(t *testing.T) { runAttack(t, "git-hookspath") }

// TestEscape_GitHooksMissing checks SPEC §14 (issue 46, a row the peers
// hold): a repository without .git/hooks does not get one from a command
// (testdata/attacks/git-hooks-missing.txtar).
func TestEscape_GitHooksMissing(t *testing.T) { runAttack(t, "git-hooks-missing") }

// TestEscape_ReadOnlyTmpWorkspace checks SPEC §14 (issue 46 row 15): with
// mode read-only, a workspace under the writable /tmp stays read-only, its
// .git too (testdata/attacks/readonly-tmp-workspace.txtar).
func TestEscape_ReadOnlyTmpWorkspace(t *testing.T) { runAttack(t, "readonly-tmp-workspace") }

// TestEscape_ProtectRenameParent checks SPEC §14 (issue 46 row 16, and a
// row the peers hold): renaming a protected path's parent away does not
// free its name (testdata/attacks/protect-rename-parent.txtar).
func TestEscape_ProtectRenameParent(t *testing.T) { runAttack(t, "protect-rename-parent") }

// TestEscape_ProtectMissing checks SPEC §14 (issue 46 row 16, and a row
// the peers hold): a protect path that does not exist yet cannot be created
// (testdata/attacks/protect-missing.txtar).
func TestEscape_ProtectMissing(t *testing.T) { runAttack(t, "protect-missing") }

// TestSandbox_GitWorksProtected checks SPEC §14 (issue 46 rows 12–14):
// with the gitdir, a submodule's gitdir and core.hooksPath protected, git
// still commits, branches, stashes and checks out inside the sandbox, and
// the host's git works on the result (testdata/attacks/git-works.txtar).
func TestSandbox_GitWorksProtected(t *testing.T) { runAttack(t, "git-works") }

// TestEscape_GitNestedRepo checks SPEC §14 (issue 46 row 14): a nested
// repository the host names in protect (vendor/lib/.git) is protected as
// the root's is, and git still commits in it
// (testdata/attacks/git-nested-repo.txtar).
func TestEscape_GitNestedRepo(t *testing.T) { runAttack(t, "git-nested-repo") }

// TestEscape_GitRmHistory checks SPEC §14 (issue 46 row 18): git gc
// --prune=now and rm -rf .git do not destroy the history as of the
// command's start (testdata/attacks/git-rm-history.txtar).
func TestEscape_GitRmHistory(t *testing.T) { runAttack(t, "git-rm-history") }

// TestSandbox_GitHistorySurvives checks SPEC §14 (issue 46 row 18): a
// commit, a branch and a stash made by one command survive the next
// command's rm -rf .git, readable on the host from .git/toolrpc-history, while
// git worked as usual inside.
func TestSandbox_GitHistorySurvives(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		r := b.bash(t, "echo one > a && git add a && git commit -qm one && git checkout -qb topic && git commit -q --allow-empty -m topic && "+
			"echo two >> a && git stash -q && git checkout -q - && git log --oneline --all | wc -l")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		require.Equal(t, "4", strings.TrimSpace(r.Stdout), "one, topic, and the stash's two commits")
		r = b.bash(t, "rm -rf .git; ls .git")
		require.Contains(t, r.Stdout, "toolrpc-history", "rm -rf .git removed the kept history: %s", r.Stderr)
		git := exec.Command("git", "--git-dir="+filepath.Join(b.ws, ".git", "toolrpc-history"), "log", "--format=%s", "--all")
		out, err := git.CombinedOutput()
		require.NoError(t, err, "%s", out)
		log := string(out)
		for _, want := range []string{"one\n", "topic\n", "WIP on topic"} {
			require.Contains(t, log, want, "the kept history lacks %q", want)
		}
	})
}

// TestEscape_ExternalRootUnderTmp checks SPEC §14 (issue 46 row 15): an
// external root the host approved for the file tools stays read-only to
// commands when it lies under the writable /tmp.
func TestEscape_ExternalRootUnderTmp(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		ext, err := os.MkdirTemp("/tmp", "toolrpc-ext-")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(ext) })
		require.NoError(t, os.WriteFile(filepath.Join(ext, "lib.txt"), []byte("lib\n"), 0o644))
		if os.Geteuid() == 0 && !asRoot {
			require.NoError(t, exec.Command("chown", "-R", fmt.Sprintf("%d:%d", sandboxUID, sandboxUID), ext).Run())
		}
		b := newSandboxBoxIn(t, "/var/tmp", asRoot, nil, withExternalRoots(ext))
		r := b.bash(t, "echo changed > "+ext+"/lib.txt; echo new > "+ext+"/new.txt; echo scratch > /tmp/x-$$ && rm /tmp/x-$$ && echo tmp-ok")
		require.Contains(t, r.Stdout, "tmp-ok", "/tmp itself stays writable: %s", r.Stderr)
		require.Equal(t, "lib\n", fileText(t, filepath.Join(ext, "lib.txt")), "a command wrote the external root")
		require.NoFileExists(t, filepath.Join(ext, "new.txt"))
	})
}
