package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/wire"
)

func TestParseGitConfig(t *testing.T) {
	got := parseGitConfig("[core]\n\tHooksPath = .husky # husky\n\tworktree = \"../../a b\"\n" +
		"[includeIf \"gitdir:~/w/\"]\n\tpath = ../inc.cfg\n[include]\n\tpath = x\\\"y ; c\n[Core.sub] hookspath = two\nbad\n[broken\nk = v\n")
	require.Equal(t, map[string][]string{
		"core.hookspath": {".husky", "two"},
		"core.worktree":  {"../../a b"},
		"includeif.path": {"../inc.cfg"},
		"include.path":   {"x\"y"},
		"core.bad":       {""},
	}, got)
}

func FuzzParseGitConfig(f *testing.F) {
	for _, s := range []string{"[core]\n\thooksPath = .husky\n", "[include]\npath=\"a\\\\b\" ; x", "[a \"b\"] c = d\n[e.f]\ng", "[", "k=v", "[core]\n\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for k, vs := range parseGitConfig(text) {
			section, key, ok := strings.Cut(k, ".")
			if !ok || section == "" || key == "" || k != strings.ToLower(k) {
				t.Fatalf("key %q", k)
			}
			for _, v := range vs {
				if v != strings.TrimSpace(v) {
					t.Fatalf("value %q of %q keeps its spaces", v, k)
				}
			}
		}
	})
}

// TestProtectGit checks the git directories a root's protection reaches:
// the gitdir's entry and its code-bearing entries, core.hooksPath and an
// include in the workspace, each submodule's gitdir (a name with a slash)
// and .git file, and the directories on the way, pinned.
func TestProtectGit(t *testing.T) {
	ws := canonical(t.TempDir())
	files := map[string]string{
		".git/HEAD":                    "ref: refs/heads/main\n",
		".git/config":                  "[core]\n\thooksPath = .husky\n[include]\n\tpath = ../cfg/extra\n",
		".git/modules/a/b/HEAD":        "ref: refs/heads/main\n",
		".git/modules/a/b/config":      "[core]\n\tworktree = ../../../../lib/b\n",
		".git/modules/a/b/hooks/.keep": "",
		"lib/b/.git":                   "gitdir: ../../.git/modules/a/b\n",
		".husky/pre-commit":            "#!/bin/sh\n",
	}
	for p, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644))
	}
	r, err := Resolve(wire.SandboxPolicy{Mode: wire.SandboxWorkspaceWrite, Protect: []string{"conf/tool/settings.json"}},
		Env{Roots: []string{ws}, Machine: linux7, Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	got := map[string]bool{}
	for _, p := range r.Protect {
		rel, err := filepath.Rel(ws, p.Path)
		require.NoError(t, err)
		got[rel] = p.Tree
	}
	want := map[string]bool{
		".git": false, ".git/config": true, ".git/hooks": true, ".git/commondir": true, ".git/config.worktree": true,
		".husky": true, "cfg/extra": true, "cfg": false,
		".git/modules": false, ".git/modules/a": false, ".git/modules/a/b": false, ".git/modules/a/b/config": true,
		".git/modules/a/b/hooks": true, ".git/modules/a/b/commondir": true, ".git/modules/a/b/config.worktree": true,
		".git/toolrpc-history": true, ".git/modules/a/b/toolrpc-history": true, "lib/b/.git": true, "lib/b": false, "lib": false,
		// A protect path that does not exist: it and its parent read-only,
		// the parent's parent pinned.
		"conf/tool/settings.json": true, "conf/tool": true, "conf": false,
	}
	require.Equal(t, want, got)
}
