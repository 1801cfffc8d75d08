package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// debianTrap is the top of Debian's linux-source tree: its .gitignore ends
// in "/*" and "!/debian/", so outside git almost everything is ignored.
var debianTrap = [][2]string{
	{".gitignore", "*.o\n# Debian packaging\n/*\n!/debian/\n"},
	{"debian/rules", "PM_RESUME rules\n"},
	{"debian/control", "Source: linux\n"},
	{"debian/changelog", "linux (6.1)\n"},
	{"kernel/power/main.c", "PM_RESUME\n"},
	{"kernel/power/hibernate.c", "PM_RESUME\n"},
	{"drivers/base/power.c", "PM_RESUME\n"},
	{"drivers/base/power.h", "nothing\n"},
	{"Makefile", "PM_RESUME\n"},
}

// Guards against: a search that ignore rules made short or empty without a
// word (an agent then concludes the files do not exist), a notice that
// names no rule or a wrong count, a notice on a result that hit its limit.
//
// Checks SPEC §5.
func TestIgnoredNotice_DebianTrap(t *testing.T) {
	s := start(t)
	grepWrite(t, s.Root, debianTrap)

	g := decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "PM_RESUME"}))
	require.Equal(t, []string{"debian/rules"}, g.Files)
	require.False(t, g.Truncated)
	require.Equal(t, "Ignore rules excluded 6 files under the searched path (.gitignore:3 /* excluded 6); "+
		"an explicit path reaches ignored files.", g.Notice)

	// The count is of files grep's glob keeps, and glob's of matching files.
	g = decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "PM_RESUME", "glob": "*.c"}))
	require.Empty(t, g.Files)
	require.Contains(t, g.Notice, "excluded 3 files under the searched path (.gitignore:3 /* excluded 3)")
	gl := decode[globReply](t, s.call(t, "tools/glob", map[string]any{"pattern": "**/*.c"}))
	require.Empty(t, gl.Matches)
	require.Contains(t, gl.Notice, "Ignore rules excluded 3 matching files under the searched path (.gitignore:3 /* excluded 3)")

	// The explicit path the notice points to reaches them, without a notice.
	gl = decode[globReply](t, s.call(t, "tools/glob", map[string]any{"pattern": "**/*.c", "path": "kernel"}))
	require.Len(t, gl.Matches, 2)
	require.Empty(t, gl.Notice)

	// A result that reaches its limit says so, and nothing about ignored files.
	gl = decode[globReply](t, s.call(t, "tools/glob", map[string]any{"pattern": "**", "limit": 2}))
	require.True(t, gl.Truncated)
	require.NotContains(t, gl.Notice, "Ignore rules")
	g = decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "PM_RESUME|Source", "headLimit": 1}))
	require.Len(t, g.Files, 1)
	require.True(t, g.Truncated)
	require.NotContains(t, g.Notice, "Ignore rules")
}

// The notice names the rule that excluded the most, in nested ignore files,
// a repository's info/exclude and the global excludes file (named by its
// absolute path: it lies outside the workspace), and the counts agree with
// git's own list of ignored files.
//
// Checks SPEC §5.
func TestIgnoredNotice_NamesTheRuleGitNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required")
	}
	xdg := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(xdg, "git"), 0o755))
	global := filepath.Join(xdg, "git", "ignore")
	require.NoError(t, os.WriteFile(global, []byte("*.swp\n"), 0o644))
	s := start(t, withEnv("XDG_CONFIG_HOME="+xdg, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"))
	git := exec.Command("git", "init", "-q")
	git.Dir = s.Root
	require.NoError(t, git.Run())
	grepWrite(t, s.Root, [][2]string{
		{"src/a.go", "x\n"},
		{"src/.gitignore", "gen/\n"},
		{"src/gen/1.go", "x\n"}, {"src/gen/2.go", "x\n"}, {"src/gen/3.go", "x\n"},
		{"a.swp", "x\n"}, {"b.swp", "x\n"}, {"c.swp", "x\n"}, {"d.swp", "x\n"},
		{"secret.txt", "x\n"},
		{".git/info/exclude", "secret.txt\n"},
	})
	g := decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "x"}))
	require.Equal(t, []string{"src/a.go"}, g.Files)
	require.Equal(t, "Ignore rules excluded 8 files under the searched path ("+global+":1 *.swp excluded 4); "+
		"an explicit path reaches ignored files.", g.Notice)

	ls := exec.Command("git", "ls-files", "--others", "--ignored", "--exclude-standard")
	ls.Dir = s.Root
	ls.Env = append(os.Environ(), "XDG_CONFIG_HOME="+xdg, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := ls.Output()
	require.NoError(t, err)
	require.Len(t, strings.Fields(string(out)), 8)

	g = decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "x", "path": "src"}))
	require.Equal(t, "Ignore rules excluded 3 files under the searched path (src/.gitignore:1 gen/ excluded 3); "+
		"an explicit path reaches ignored files.", g.Notice)
}
