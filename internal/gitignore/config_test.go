package gitignore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConfigValue(t *testing.T) {
	for _, c := range []struct {
		conf, want string
		ok         bool
	}{
		{"[core]\n\texcludesFile = ~/x\n", "~/x", true},
		{"[Core]\nEXCLUDESFILE=a b  # comment\n", "a b", true},
		{"[core]\nexcludesfile = \"a ; b\" c\n", "a ; b c", true},
		{"[core]\nexcludesfile = a\\\nb\n", "ab", true},
		{"[core]\nexcludesfile = a\\tb\n", "a\tb", true},
		{"[core \"x\"]\nexcludesfile = a\n", "", false},
		{"[core.x]\nexcludesfile = a\n", "", false},
		{"[user]\nexcludesfile = a\n[core]\nother = 1\n", "", false},
		{"[core]\nexcludesfile = a\nexcludesfile = b\n", "b", true},
		{"[core] excludesfile = a\n", "a", true},
		{"[core]\nexcludesfile\n", "", true},
		{"[core]\nexcludesfile = \"a\n", "", false},
		{"[core]\nexcludesfile = a\\q\n", "", false},
		{"# c\n; c\n[core]\n  excludesfile = a ", "a", true},
	} {
		got, ok := ConfigValue([]byte(c.conf), "core", "excludesfile")
		require.Equal(t, c.ok, ok, "%q", c.conf)
		require.Equal(t, c.want, got, "%q", c.conf)
	}
}

// FuzzConfigValueVsGit compares ConfigValue with `git config --file F
// --get core.excludesFile` wherever git accepts the file.
func FuzzConfigValueVsGit(f *testing.F) {
	if _, err := exec.LookPath("git"); err != nil {
		f.Skip("git is not installed")
	}
	f.Add("[core]\n\texcludesFile = ~/x\n")
	f.Add("[core]\nexcludesfile = \"a ; b\" c\\t # d\n")
	f.Add("[core \"x\"]\nexcludesfile = a\n[core]excludesfile=b")
	f.Add("[a.b]\n[core]\nexcludesfile\n")
	dir := f.TempDir()
	file := filepath.Join(dir, "config")
	f.Fuzz(func(t *testing.T, conf string) {
		if len(conf) > 200 || strings.ContainsAny(conf, "\x00") || strings.Contains(strings.ToLower(conf), "include") {
			return
		}
		require.NoError(t, os.WriteFile(file, []byte(conf), 0o644))
		cmd := exec.Command("git", "config", "--file", file, "--get", "core.excludesFile")
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.Output()
		ee, _ := err.(*exec.ExitError)
		switch {
		case err == nil:
			got, ok := ConfigValue([]byte(conf), "core", "excludesfile")
			require.True(t, ok, "%q", conf)
			require.Equal(t, strings.TrimSuffix(string(out), "\n"), got, "%q", conf)
		case ee != nil && ee.ExitCode() == 1:
			_, ok := ConfigValue([]byte(conf), "core", "excludesfile")
			require.False(t, ok, "%q", conf)
		}
		// Other exits: git refuses the file; ConfigValue may differ.
	})
}
