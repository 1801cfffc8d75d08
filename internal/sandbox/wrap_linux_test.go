//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolrpc/toolrpc/internal/sandbox/confine"
	"github.com/toolrpc/toolrpc/procgroup"
	"github.com/toolrpc/toolrpc/wire"
)

// runIn runs command under r in dir and returns its exit code and output.
func runIn(t *testing.T, r *Resolved, dir, command string) (int, string) {
	t.Helper()
	wrap, err := r.Wrap()
	require.NoError(t, err)
	var out bytes.Buffer
	g, err := procgroup.Start(procgroup.Spec{Command: command, Dir: dir, Stdout: &out, Stderr: &out, Wrap: wrap, Fork: r.Fork()})
	require.NoError(t, err)
	st, _ := g.Wait()
	return st.ExitCode, out.String()
}

// TestWrapConfines checks SPEC §14: a wrapped command writes inside the
// workspace and nowhere else, cannot read a private key, and cannot change
// .git/hooks.
func TestWrapConfines(t *testing.T) {
	env := testEnv(t)
	env.Machine = Probe()
	if env.Machine.LandlockABI == 0 {
		t.Skip("no Landlock")
	}
	r, err := Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	defer r.Close()
	ws := env.Roots[0]
	code, out := runIn(t, r, ws, "echo hi > a.txt && cat a.txt && mkdir -p sub && echo x > sub/b && git --version >/dev/null")
	require.Equal(t, 0, code, out)
	code, out = runIn(t, r, ws, "echo evil > "+env.Home+"/.bashrc")
	require.NotEqual(t, 0, code, out)
	require.NoFileExists(t, filepath.Join(env.Home, ".bashrc"))
	code, out = runIn(t, r, ws, "cat "+env.Home+"/.ssh/id_ed25519")
	require.NotEqual(t, 0, code, out)
	code, out = runIn(t, r, ws, "cat "+env.Home+"/.ssh/id_ed25519.pub "+env.Home+"/.ssh/known_hosts")
	require.Equal(t, 0, code, out)
	code, out = runIn(t, r, ws, "echo evil > .git/hooks/pre-commit")
	require.NotEqual(t, 0, code, out)
	code, out = runIn(t, r, ws, "mv .git .git2")
	require.NotEqual(t, 0, code, out)
	require.DirExists(t, filepath.Join(ws, ".git"))
	_, err = os.Stat(filepath.Join(ws, ".git/hooks/pre-commit"))
	require.Error(t, err)
	t.Log(out)
}

// BenchmarkWrapTrue measures what the wrapper adds to bash -c true: run with
// -bench 'WrapTrue' and compare the off and workspace-write rows.
func BenchmarkWrapTrue(b *testing.B) {
	base, err := os.MkdirTemp("/var/tmp", "sandbox-bench-")
	require.NoError(b, err)
	defer os.RemoveAll(base)
	env := Env{Roots: []string{base}, Home: os.Getenv("HOME"), Machine: Probe()}
	for _, mode := range []string{wire.SandboxOff, wire.SandboxWorkspaceWrite, "no-mountns", "wrapper"} {
		env := env
		if mode == "no-mountns" {
			env.Machine.MountNS = false
		}
		r, err := Resolve(wire.SandboxPolicy{Mode: strings.TrimSuffix(strings.TrimPrefix(mode, "no-mountns"), "wrapper")}, env)
		require.NoError(b, err)
		wrap, err := r.Wrap()
		require.NoError(b, err)
		fork := r.Fork()
		if mode == "wrapper" {
			fork = nil // the wrapper's exec, as before the confined thread
		}
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				g, err := procgroup.Start(procgroup.Spec{Command: "true", Dir: base, Wrap: wrap, Fork: fork})
				require.NoError(b, err)
				st, _ := g.Wait()
				require.Equal(b, 0, st.ExitCode)
			}
		})
	}
}

// TestWrapperRefusesServerNamespace checks SPEC §14's "never in silence":
// a wrapper started in the server's own mount namespace (not by Wrap) does
// not touch its mounts, does not run the command, and says why.
func TestWrapperRefusesServerNamespace(t *testing.T) {
	env := testEnv(t)
	env.Machine = Probe()
	if !env.Machine.MountNS {
		t.Skip("no mount namespace here")
	}
	r, err := Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	p := r.confinePolicy()
	p.ServerMountNS = serverMountNS()
	before, err := os.ReadFile("/proc/self/mountinfo")
	require.NoError(t, err)
	out, err := exec.Command(os.Args[0], p.Args([]string{"/bin/sh", "-c", "echo ran"})...).CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, confine.FailCode, exit.ExitCode())
	require.Contains(t, string(out), "not in a mount namespace of its own")
	require.NotContains(t, string(out), "ran")
	after, err := os.ReadFile("/proc/self/mountinfo")
	require.NoError(t, err)
	require.Equal(t, string(before), string(after))
}
