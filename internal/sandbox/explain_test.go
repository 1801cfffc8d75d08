package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolrpc/toolrpc/wire"
)

// TestExplain checks SPEC §14: a refusal the command printed is named when
// the policy caused it, with the op and path, and not when it did not.
func TestExplain(t *testing.T) {
	env := testEnv(t)
	r, err := Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	ws, home := env.Roots[0], env.Home
	require.NoError(t, os.WriteFile(ws+"/mine", nil, 0o000))
	for _, tc := range []struct {
		name, output string
		want         []wire.SandboxDenial
	}{
		{"bash redirect", "/usr/bin/bash: line 1: " + home + "/.bashrc: Permission denied",
			[]wire.SandboxDenial{{Op: "write", Path: home + "/.bashrc"}}},
		{"cat key", "cat: " + home + "/.ssh/id_ed25519: Permission denied",
			[]wire.SandboxDenial{{Op: "read", Path: home + "/.ssh/id_ed25519"}}},
		{"python", "PermissionError: [Errno 13] Permission denied: '" + home + "/.aws/credentials'",
			[]wire.SandboxDenial{{Op: "read", Path: home + "/.aws/credentials"}}},
		{"relative hook", "bash: .git/hooks/pre-commit: Read-only file system",
			[]wire.SandboxDenial{{Op: "write", Path: ws + "/.git/hooks/pre-commit"}}},
		{"mv .git", "mv: cannot move '.git' to '.git2': Device or resource busy",
			[]wire.SandboxDenial{{Op: "write", Path: ws + "/.git"}}},
		{"own mode", "cat: mine: Permission denied", nil},
		{"new file outside", "bash: line 1: ../escape: Permission denied",
			[]wire.SandboxDenial{{Op: "write", Path: filepath.Dir(ws) + "/escape"}}},
		{"no refusal", home + "/.bashrc exists", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := r.Explain(tc.output, ws)
			if tc.want == nil {
				require.Nil(t, rep)
				return
			}
			require.NotNil(t, rep)
			require.Equal(t, tc.want, rep.Denied)
			require.Contains(t, rep.Notice, "[sandbox: "+tc.want[0].Op)
		})
	}
	off, err := Resolve(wire.SandboxPolicy{Network: wire.NetworkOff}, env)
	require.NoError(t, err)
	rep := off.Explain("curl: (7) Failed to connect to 10.1.2.3 port 443 after 0 ms: Couldn't connect to server", ws)
	require.Equal(t, []wire.SandboxDenial{{Op: "connect", Addr: "10.1.2.3:443"}}, rep.Denied)
	require.Nil(t, r.Explain("curl: (7) Failed to connect to 10.1.2.3 port 443", ws), "network on: not the sandbox")
}

// TestWatch checks SPEC §14's known gap: without a mount namespace, a
// change to a protected path during a command is named after it.
func TestWatch(t *testing.T) {
	env := testEnv(t)
	env.Machine.MountNS = false
	r, err := Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	require.Contains(t, r.Gaps()[0], "detected after the command")
	ws := env.Roots[0]
	changed := r.Watch()
	require.NoError(t, os.WriteFile(ws+"/.git/HEAD", []byte("ref: refs/heads/x\n"), 0o644))
	require.NoError(t, os.MkdirAll(ws+"/.git/objects/ab", 0o755))
	require.Empty(t, changed(), "git's own writes inside .git are no change")
	require.NoError(t, os.WriteFile(ws+"/.git/hooks/pre-commit", []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(ws+"/.git/config.new", []byte("[core]\n"), 0o644))
	require.NoError(t, os.Rename(ws+"/.git/config.new", ws+"/.git/config"))
	require.NoError(t, os.WriteFile(ws+"/.git/commondir", []byte("../evil\n"), 0o644))
	require.Equal(t, []string{filepath.Join(ws, ".git/config"), filepath.Join(ws, ".git/hooks"), filepath.Join(ws, ".git/commondir")}, changed())
	rep := r.Report("", ws, changed())
	require.Contains(t, rep.Notice, "protected paths changed")

	env.Machine.MountNS = true
	r, err = Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	require.Nil(t, r.Watch()())
}
