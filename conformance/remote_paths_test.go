package conformance

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// remoteInit is the part of the initialize result that names remote paths.
type remoteInit struct {
	Roots      []string `json:"roots"`
	ScratchDir string   `json:"scratchDir"`
}

// TestRemote_PathsAndRootsOverSSH: every path the host names or is told is a
// path on the remote side. The wrapper here does not cd: like `ssh host
// toolrpc`, the server starts in the remote login directory, so only what
// the host names (rootUri, --root, dataDir, --data-dir) places the session.
//
// Checks SPEC §3, §12.
func TestRemote_PathsAndRootsOverSSH(t *testing.T) {
	d := startSSHD(t)
	useBin(t, d.writeWrapper(t, plainServer(t), wrapper{name: "toolrpc-over-ssh-no-cd", noCd: true}))
	u, err := user.Current()
	require.NoError(t, err)
	home, err := filepath.EvalSymlinks(u.HomeDir)
	require.NoError(t, err)
	dropRoot := func(p map[string]any) { delete(p, "rootUri") }

	t.Run("no root named: the remote login directory", func(t *testing.T) {
		s := start(t, withInitParams(dropRoot))
		init := decode[remoteInit](t, s.InitResult)
		require.Equal(t, []string{home}, init.Roots)
		cwd, err := os.Getwd()
		require.NoError(t, err)
		require.NotEqual(t, cwd, init.Roots[0], "the host's own directory leaked into the remote session")
	})

	t.Run("--root and --data-dir name remote directories", func(t *testing.T) {
		root, data := t.TempDir(), t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(root, "hello.txt"), []byte("remote hello\n"), 0o644))
		s := start(t, withDataDir(data), withArgs("--root", root, "--data-dir", data), withInitParams(func(p map[string]any) {
			delete(p, "rootUri")
			delete(p["initializationOptions"].(map[string]any), "dataDir")
		}))
		init := decode[remoteInit](t, s.InitResult)
		require.Equal(t, []string{root}, init.Roots)
		require.Equal(t, filepath.Join(data, "scratch", s.SessionID), init.ScratchDir)
		r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "hello.txt"}))
		require.Equal(t, []string{"remote hello"}, readBody(t, r))
		require.Equal(t, "workspace", r.Root)
	})

	t.Run("rootUri through a symlink is reported resolved", func(t *testing.T) {
		real, links := t.TempDir(), t.TempDir()
		link := filepath.Join(links, "ws")
		require.NoError(t, os.Symlink(real, link))
		s := start(t, withRoot(link))
		init := decode[remoteInit](t, s.InitResult)
		require.Equal(t, []string{real}, init.Roots)
	})

	t.Run("a spill path in a marker is read back remotely", func(t *testing.T) {
		s := start(t)
		init := decode[remoteInit](t, s.InitResult)
		r := decode[bashRes](t, s.call(t, "tools/bash", map[string]any{"command": "seq 100000"}))
		require.NotNil(t, r.StdoutInfo.Spill)
		spill := *r.StdoutInfo.Spill
		require.Equal(t, init.ScratchDir, filepath.Dir(filepath.Dir(spill)), "spill outside the reported scratch dir")
		require.Contains(t, r.Stdout, "Full output saved to "+spill)
		rd := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": spill, "offset": 4001, "limit": 3}))
		require.Equal(t, "scratch", rd.Root)
		require.Equal(t, []string{"4001", "4002", "4003"}, readBody(t, rd))
	})

	t.Run("tools/bash runs in the remote ssh environment, not as a top-level shell", func(t *testing.T) {
		s := start(t)
		r := decode[bashRes](t, s.call(t, "tools/bash", map[string]any{"command": `echo "${SSH_CLIENT:+ssh} $SHLVL"`}))
		// SSH_CLIENT comes from sshd (the host's own environment does not
		// reach the remote side); SHLVL 2 means the server raised it, so
		// bash did not source ~/.bashrc (TestRemote_ToolShellSkipsBashrcUnderSSH).
		require.Equal(t, "ssh 2\n", r.Stdout)
	})
}
