package sandbox

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/wire"
)

// TestExplainNamesEachDenial checks SPEC §14's "denials reach the model"
// for the refusals issue 46 found misnamed or unnamed: each is named with
// its op and its path (as the command printed it, never through the
// server's own /proc), or the call the sandbox refused.
func TestExplainNamesEachDenial(t *testing.T) {
	env := testEnv(t)
	ws, home := env.Roots[0], env.Home
	require.NoError(t, os.Symlink(home+"/.ssh/id_ed25519", ws+"/keylink"))
	on, err := Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	off, err := Resolve(wire.SandboxPolicy{Network: wire.NetworkOff}, env)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, output string
		r            *Resolved
		want         wire.SandboxDenial
	}{
		{"another process's environ", "cat: /proc/4242/environ: Permission denied", on,
			wire.SandboxDenial{Op: "read", Path: "/proc/4242/environ"}},
		{"read through a symlink", "cat: keylink: Permission denied", on,
			wire.SandboxDenial{Op: "read", Path: home + "/.ssh/id_ed25519"}},
		{"own /proc/self", "cat: /proc/self/mem: Permission denied", on,
			wire.SandboxDenial{Op: "read", Path: "/proc/self/mem"}},
		{"TIOCSTI with network off", "TIOCSTI: Operation not permitted", off,
			wire.SandboxDenial{Op: "syscall", Call: "ioctl TIOCSTI"}},
		{"kill", "bash: line 1: kill: (1) - Operation not permitted", on,
			wire.SandboxDenial{Op: "syscall", Call: "kill"}},
		{"bpf", "bpftool: bpf(BPF_PROG_LOAD) failed: Operation not permitted", on,
			wire.SandboxDenial{Op: "syscall", Call: "bpf"}},
		{"mknod", "mknod: " + ws + "/fifo0: Operation not permitted", on,
			wire.SandboxDenial{Op: "syscall", Call: "mknod", Path: ws + "/fifo0"}},
		{"keyring", "add_key: Operation not permitted", on,
			wire.SandboxDenial{Op: "syscall", Call: "keyctl"}},
		{"SIGSYS", "bash: line 1:  4242 Bad system call         (core dumped) ./x", on,
			wire.SandboxDenial{Op: "syscall", Call: "SIGSYS"}},
		{"/proc/sys", "bash: line 1: /proc/sys/kernel/core_pattern: Read-only file system", on,
			wire.SandboxDenial{Op: "write", Path: "/proc/sys/kernel/core_pattern"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := tc.r.Explain(tc.output, ws)
			require.NotNil(t, rep, "not named")
			require.Equal(t, tc.want, rep.Denied[0])
			require.NotContains(t, rep.Notice, "network")
			if tc.want.Call != "" {
				require.Contains(t, rep.Notice, "[sandbox: syscall "+tc.want.Call)
			}
		})
	}
}

// FuzzExplain checks that any output is explained without a panic, with
// each denial's op one of SPEC §14's, a syscall denial naming its call, and
// never more than limits.SandboxMaxDenials.
func FuzzExplain(f *testing.F) {
	for _, s := range []string{"TIOCSTI: Operation not permitted", "bash: line 1: kill: (1) - Operation not permitted",
		"cat: /proc/self/environ: Permission denied", "cat: /proc/12/environ: Permission denied\nmknod: x: Operation not permitted",
		"chmod: changing permissions of 'x': Operation not permitted", "Bad system call", "curl: (7) Failed to connect to 1.2.3.4 port 80"} {
		f.Add(s)
	}
	env := testEnv(f)
	r, err := Resolve(wire.SandboxPolicy{Network: wire.NetworkOff}, env)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, out string) {
		rep := r.Explain(out, env.Roots[0])
		if rep == nil {
			return
		}
		require.LessOrEqual(t, len(rep.Denied), limits.SandboxMaxDenials)
		for _, d := range rep.Denied {
			require.Contains(t, []string{"read", "write", "connect", "exec", "syscall"}, d.Op)
			require.Equal(t, d.Op == "syscall", d.Call != "", "%+v", d)
		}
	})
}
