package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolrpc/toolrpc/wire"
)

var linux7 = Machine{OS: "linux", LandlockABI: 7, Seccomp: true, MountNS: true}

// testEnv makes a home with credentials and a workspace with a .git.
func testEnv(t testing.TB) Env {
	t.Helper()
	base := outsideTmp(t)
	home, ws, scratch := filepath.Join(base, "home"), filepath.Join(base, "ws"), filepath.Join(base, "scratch")
	for _, d := range []string{home + "/.ssh", ws + "/.git/hooks", scratch} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	for _, f := range []string{home + "/.ssh/id_ed25519", home + "/.ssh/id_ed25519.pub", home + "/.ssh/known_hosts", ws + "/.git/config"} {
		require.NoError(t, os.WriteFile(f, []byte("x"), 0o600))
	}
	env := map[string]string{"TMPDIR": base + "/tmpdir", "GOCACHE": home + "/gocache"}
	return Env{Roots: []string{ws}, Scratch: scratch, Home: home, Machine: linux7,
		Getenv: func(k string) string { return env[k] }}
}

// outsideTmp returns a fresh directory outside /tmp (which every policy
// makes writable), removed after the test.
func outsideTmp(t testing.TB) string {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "sandbox-test-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	real, err := filepath.EvalSymlinks(base)
	require.NoError(t, err)
	return real
}

func denialOf(t *testing.T, err error) *Denial {
	t.Helper()
	var d *Denial
	require.True(t, errors.As(err, &d), "want a *Denial, got %v", err)
	return d
}

// TestResolveModes checks SPEC §14: auto is workspace-write where Landlock
// is, else off with the reason; an explicit mode this machine cannot enforce
// is unavailable, never weakened.
func TestResolveModes(t *testing.T) {
	env := testEnv(t)
	r, err := Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	require.Equal(t, wire.SandboxWorkspaceWrite, r.Mode)
	require.Equal(t, wire.SandboxAuto, r.Requested)
	require.Empty(t, r.Unavailable)

	env.Machine = Machine{OS: "linux"}
	r, err = Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	require.Equal(t, wire.SandboxOff, r.Mode)
	require.Contains(t, r.Reason, "Landlock")
	require.NoError(t, r.CheckWrite("/etc/passwd"))

	r, err = Resolve(wire.SandboxPolicy{Mode: wire.SandboxWorkspaceWrite}, env)
	require.NoError(t, err)
	require.Contains(t, r.Unavailable, "Landlock")
	require.Contains(t, r.Unavailable, "sandbox.mode: off")

	env.Machine = Machine{OS: "windows"}
	r, err = Resolve(wire.SandboxPolicy{Mode: wire.SandboxReadOnly}, env)
	require.NoError(t, err)
	require.Contains(t, r.Unavailable, "windows")

	_, err = Resolve(wire.SandboxPolicy{Mode: "yolo"}, env)
	require.Error(t, err)
	_, err = Resolve(wire.SandboxPolicy{Network: "maybe"}, env)
	require.Error(t, err)
}

// TestCheckWrite checks SPEC §14's writable set and protected paths.
func TestCheckWrite(t *testing.T) {
	env := testEnv(t)
	r, err := Resolve(wire.SandboxPolicy{Writable: []string{"~/extra"}}, env)
	require.NoError(t, err)
	ws := env.Roots[0]
	home := env.Home
	for _, ok := range []string{ws + "/a/b.go", ws, env.Scratch + "/x", "/tmp/x", filepath.Dir(env.Home) + "/tmpdir/y",
		"/dev/null", home + "/.cache/go-build/x", home + "/.npm/_cacache", home + "/gocache/x", home + "/extra/f",
		ws + "/.git/objects/ab/cd", ws + "/.git/index.lock", ws + "/.git/HEAD"} {
		require.NoError(t, r.CheckWrite(ok), ok)
	}
	d := denialOf(t, r.CheckWrite(home+"/.bashrc"))
	require.Equal(t, "write", d.Op)
	require.Equal(t, "[sandbox: write to "+home+"/.bashrc denied — writable: the workspace, /tmp, caches. The host can add it with sandbox.writable.]", d.Error())
	for _, bad := range []string{"/etc/passwd", ws + "/.git", ws + "/.git/hooks", ws + "/.git/hooks/pre-commit", ws + "/.git/config", filepath.Dir(ws)} {
		require.Error(t, r.CheckWrite(bad), bad)
	}
	require.Contains(t, r.CheckWrite(ws+"/.git/config").Error(), "protected")
}

// TestReadOnly checks SPEC §14: read-only has no writable root but scratch,
// /tmp and /dev/null.
func TestReadOnly(t *testing.T) {
	env := testEnv(t)
	r, err := Resolve(wire.SandboxPolicy{Mode: wire.SandboxReadOnly, Writable: []string{"/var"}}, env)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{canonical(env.Scratch), canonical("/tmp"), "/dev/null"}, r.Writable)
	require.Error(t, r.CheckWrite(env.Roots[0]+"/f"))
	require.NoError(t, r.CheckWrite("/tmp/f"))
}

// TestCheckRead checks SPEC §14's deny list: private keys but not *.pub,
// known_hosts or config; denyRead adds to it; write is denied too.
func TestCheckRead(t *testing.T) {
	env := testEnv(t)
	r, err := Resolve(wire.SandboxPolicy{DenyRead: []string{"~/secret.txt"}}, env)
	require.NoError(t, err)
	home := env.Home
	for _, bad := range []string{home + "/.ssh/id_ed25519", home + "/.ssh/id_rsa", home + "/.gnupg/x", home + "/.aws/credentials",
		home + "/.docker/config.json", home + "/.netrc", home + "/.config/gh/hosts.yml", home + "/secret.txt"} {
		d := denialOf(t, r.CheckRead(bad))
		require.Equal(t, "read", d.Op, bad)
		require.True(t, strings.HasPrefix(d.Error(), "[sandbox: read of "+bad+" denied — "), d.Error())
		require.Error(t, r.CheckWrite(bad))
	}
	for _, ok := range []string{home + "/.ssh/id_ed25519.pub", home + "/.ssh/known_hosts", home + "/.ssh/config", home + "/.docker/other", "/etc/passwd", home} {
		require.NoError(t, r.CheckRead(ok), ok)
	}
}

// TestWorktreeGitdir checks SPEC §14: a worktree's resolved gitdir and its
// common dir are writable, with their hooks and config protected, and the
// .git file itself protected.
func TestWorktreeGitdir(t *testing.T) {
	env := testEnv(t)
	main := filepath.Join(filepath.Dir(env.Home), "main")
	gd := main + "/.git/worktrees/wt"
	require.NoError(t, os.MkdirAll(gd, 0o755))
	require.NoError(t, os.MkdirAll(main+"/.git/hooks", 0o755))
	require.NoError(t, os.WriteFile(gd+"/commondir", []byte("../..\n"), 0o644))
	wt := filepath.Join(filepath.Dir(env.Home), "wt")
	require.NoError(t, os.MkdirAll(wt, 0o755))
	require.NoError(t, os.WriteFile(wt+"/.git", []byte("gitdir: "+gd+"\n"), 0o644))
	env.Roots = []string{wt}
	r, err := Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	require.Error(t, r.CheckWrite(wt+"/.git"))
	require.NoError(t, r.CheckWrite(gd+"/index.lock"))
	require.NoError(t, r.CheckWrite(main+"/.git/objects/x"))
	require.Error(t, r.CheckWrite(main+"/.git/hooks/pre-commit"))
	require.Error(t, r.CheckWrite(main+"/.git/config"))
	require.Error(t, r.CheckWrite(main+"/README"))
}

// TestNetworkOff checks SPEC §14: network off denies connect with the notice
// naming sandbox.network; with network off and no seccomp an explicit mode
// is unavailable.
func TestNetworkOff(t *testing.T) {
	env := testEnv(t)
	r, err := Resolve(wire.SandboxPolicy{Network: wire.NetworkOff}, env)
	require.NoError(t, err)
	require.Equal(t, "[sandbox: connect to 1.2.3.4:443 denied — network: off (only Unix-domain sockets). The host can allow it with sandbox.network: on.]",
		r.CheckConnect("1.2.3.4:443").Error())
	require.Contains(t, r.EnforcedBy(), "seccomp")
	env.Machine.Seccomp = false
	r, err = Resolve(wire.SandboxPolicy{Mode: wire.SandboxWorkspaceWrite, Network: wire.NetworkOff}, env)
	require.NoError(t, err)
	require.Contains(t, r.Unavailable, "seccomp")
}
