package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The attacks on toolrpc's own server (SPEC §14, issue 46 rows 1–6 and 11):
// a command prepares the ground, and the server — unconfined, and root
// when it runs as root — is the one that would do the write or the read.
// They race or drive the server itself, so they are Go tests rather than
// testdata/attacks files (Peers: no).

// outsideFiles lists what dir holds, for an attack's check.
func outsideFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestEscape_SpillDirSymlink checks SPEC §14 and §6.3 (issue 46 row 1): a
// command that swaps the scratch dir's tool-output for a symlink, or its
// process dir for one (or fills it with symlinks named as the next process
// logs), never makes the server write outside the scratch dir: the next
// spill and the next process log still land in the scratch dir, and the
// files outside and the user's .bashrc are untouched.
func TestEscape_SpillDirSymlink(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		scratch := b.s.ScratchDir
		big := "seq 1 60000"
		type spilled struct {
			Info struct {
				Spill string `json:"spill"`
			} `json:"stdoutInfo"`
		}
		first := decode[spilled](t, b.s.call(t, "tools/bash", map[string]any{"command": big}))
		require.NotEmpty(t, first.Info.Spill, "the first big output is spilled")
		before := outsideFiles(t, b.outside)
		r := b.bash(t, `set -e; cd "`+scratch+`"; rm -rf tool-output process
ln -s "`+b.outside+`" tool-output; ln -s "`+b.outside+`" process; ls -l`)
		require.Equal(t, 0, *r.ExitCode, "the command may write its scratch dir: %s", r.Stderr)

		next := decode[spilled](t, b.s.call(t, "tools/bash", map[string]any{"command": big}))
		_ = decode[map[string]any](t, b.s.call(t, "tools/process/start", map[string]any{"command": "echo started"}))
		require.Equal(t, before, outsideFiles(t, b.outside), "the server wrote into the directory a command's symlink named")
		if next.Info.Spill != "" {
			require.True(t, strings.HasPrefix(next.Info.Spill, scratch+"/"), "spill %s", next.Info.Spill)
			fi, err := os.Lstat(filepath.Dir(next.Info.Spill))
			require.NoError(t, err)
			require.True(t, fi.IsDir(), "the spill went through a symlink: %s", next.Info.Spill)
		}

		// The process dir a real directory, each next log's name a symlink to .bashrc.
		r = b.bash(t, `set -e; cd "`+scratch+`"; rm -rf process; mkdir process
for i in $(seq 1 9); do ln -s "$HOME/.bashrc" process/p$i.log; ln -s "$HOME/.bashrc" process/p$i.log.tmp; done`)
		require.Equal(t, 0, *r.ExitCode, "%s", r.Stderr)
		_ = decode[map[string]any](t, b.s.call(t, "tools/process/start", map[string]any{"command": "echo started"}))
		rc, err := os.ReadFile(filepath.Join(b.home, ".bashrc"))
		require.NoError(t, err)
		require.Equal(t, "# rc\n", string(rc), "a process log was written through a symlink to .bashrc")
	})
}
