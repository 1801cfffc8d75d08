package gitignore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExcludeFile(t *testing.T) {
	top := t.TempDir()
	write := func(p, s string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(top, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(top, p), []byte(s), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(top, "plain", ".git"), 0o755))
	write("wt/.git", "gitdir: ../main/.git/worktrees/wt\n")
	write("main/.git/worktrees/wt/commondir", "../..\n")
	write("sep/.git", "gitdir: "+filepath.Join(top, "store")+"\n")
	write("bad/.git", "not a gitdir line\n")
	require.NoError(t, os.MkdirAll(filepath.Join(top, "none"), 0o755))

	require.Equal(t, filepath.Join(top, "plain/.git/info/exclude"), ExcludeFile(filepath.Join(top, "plain")))
	require.Equal(t, filepath.Join(top, "main/.git/info/exclude"), ExcludeFile(filepath.Join(top, "wt")))
	require.Equal(t, filepath.Join(top, "store/info/exclude"), ExcludeFile(filepath.Join(top, "sep")))
	require.Empty(t, ExcludeFile(filepath.Join(top, "bad")))
	require.Empty(t, ExcludeFile(filepath.Join(top, "none")))
}

func TestGlobalExcludesFile(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1"}
	getenv := func(k string) string { return env[k] }
	require.Equal(t, filepath.Join(home, ".config/git/ignore"), GlobalExcludesFile(getenv))

	env["XDG_CONFIG_HOME"] = filepath.Join(home, "xdg")
	require.Equal(t, filepath.Join(home, "xdg/git/ignore"), GlobalExcludesFile(getenv))

	// ~/.gitconfig is read after the XDG config and wins.
	require.NoError(t, os.MkdirAll(filepath.Join(home, "xdg/git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, "xdg/git/config"), []byte("[core]\nexcludesFile = /from/xdg\n"), 0o644))
	require.Equal(t, "/from/xdg", GlobalExcludesFile(getenv))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\nexcludesFile = ~/g\n"), 0o644))
	require.Equal(t, filepath.Join(home, "g"), GlobalExcludesFile(getenv))

	// $GIT_CONFIG_GLOBAL replaces both; the system file comes first.
	require.NoError(t, os.WriteFile(filepath.Join(home, "sys"), []byte("[core]\nexcludesFile = /from/sys\n"), 0o644))
	env["GIT_CONFIG_GLOBAL"] = filepath.Join(home, "none")
	env["GIT_CONFIG_SYSTEM"] = filepath.Join(home, "sys")
	require.Equal(t, filepath.Join(home, "xdg/git/ignore"), GlobalExcludesFile(getenv))
	delete(env, "GIT_CONFIG_NOSYSTEM")
	require.Equal(t, "/from/sys", GlobalExcludesFile(getenv))
}

func TestParseTrailingSpacesAndRuleString(t *testing.T) {
	rules := Parse("d/.gitignore", []byte("\xef\xbb\xbfa  \n# c\n\nb\\  \nc\\\\ \r\n!d/\nx\x00y\n\\"))
	var texts []string
	for _, r := range rules {
		texts = append(texts, r.Text)
	}
	require.Equal(t, []string{"a", "b\\ ", "c\\\\", "!d/", "x", "\\"}, texts)
	require.Equal(t, "d/.gitignore:6 !d/", rules[3].String())
	require.True(t, rules[3].Negate)
}
