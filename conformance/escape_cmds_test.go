package conformance

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The attacks of SPEC §14 on what commands reach beyond the file system:
// the host's terminal, daemons, devices, the keyring, and legitimate work
// beside a denied path (issue 46 rows 7–10, 17 and the peer-held rows).

// TestEscape_DaemonSocketTmux checks SPEC §14 (row 8): with network off a
// command cannot ask the host's tmux server, over its Unix socket, to run a
// command outside.
func TestEscape_DaemonSocketTmux(t *testing.T) { runAttack(t, "daemon-socket-tmux") }

// TestEscape_DevPtsOthers checks SPEC §14 (row 9): a command does not see the
// host's ptys in /dev/pts.
func TestEscape_DevPtsOthers(t *testing.T) { runAttack(t, "dev-pts-others") }

// TestEscape_SetuidBinary checks SPEC §14 (row 10): a command cannot leave a
// set-user-id or set-group-id file behind.
func TestEscape_SetuidBinary(t *testing.T) { runAttack(t, "setuid-binary") }

// TestEscape_BlockDevices checks SPEC §14 (row 10): no raw block device is
// visible to a command.
func TestEscape_BlockDevices(t *testing.T) { runAttack(t, "block-devices") }

// TestEscape_Keyring checks SPEC §14 (row 10): a command cannot add a key to
// the kernel keyring it would share with the host.
func TestEscape_Keyring(t *testing.T) { runAttack(t, "keyring") }

// TestEscape_ToolchainPlant checks SPEC §14 (peer-held row): a command cannot
// plant a toolchain in ~/.rustup for the host's next cargo.
func TestEscape_ToolchainPlant(t *testing.T) { runAttack(t, "toolchain-plant") }

// TestEscape_DenySymlinkTarget checks SPEC §14 (peer-held row): a denied
// symlink's target is denied too.
func TestEscape_DenySymlinkTarget(t *testing.T) { runAttack(t, "deny-symlink-target") }

// TestEscape_ProcSysWrite checks SPEC §14 (kept row): a write to
// /proc/sys/kernel/core_pattern is refused.
func TestEscape_ProcSysWrite(t *testing.T) { runAttack(t, "proc-sys-write") }

// TestEscape_DenyBesideNewFile checks SPEC §14 (row 17, works): a new file
// beside a denied path in a writable directory can be written.
func TestEscape_DenyBesideNewFile(t *testing.T) { runAttack(t, "deny-beside-new-file") }

// TestEscape_NeovimSavesBesideDeny checks SPEC §14 (row 17, works): Neovim
// saves a new file in a writable directory holding a denied .env.
func TestEscape_NeovimSavesBesideDeny(t *testing.T) { runAttack(t, "neovim-saves-beside-deny") }

// TestEscape_AgentSocketEnv checks SPEC §14 (row 8): a sandboxed command
// does not get the host's SSH_AUTH_SOCK or TMUX (their sockets are masked
// too), unless the host named the socket's directory in sandbox.writable.
func TestEscape_AgentSocketEnv(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		dir := t.TempDir()
		sock := filepath.Join(dir, "agent.1")
		env := withEnv("SSH_AUTH_SOCK="+sock, "TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%0")
		b := newSandboxBox(t, asRoot, map[string]any{"mode": "workspace-write"}, env)
		r := b.bash(t, `echo "${SSH_AUTH_SOCK-unset} ${TMUX-unset} ${TMUX_PANE-unset}"`)
		require.Equal(t, "unset unset unset\n", r.Stdout)
		allowed := newSandboxBox(t, asRoot, map[string]any{"mode": "workspace-write", "writable": []string{dir}}, env)
		r = allowed.bash(t, `echo "${SSH_AUTH_SOCK-unset}"`)
		require.Equal(t, sock+"\n", r.Stdout, "the host allowed the agent's directory")
	})
}

// TestEscape_DenySymlinkTargetFileTools checks SPEC §14 (peer-held row, the
// server's side): a denied entry that is a symlink made after the policy was
// set denies its target to the file tools too, as to commands.
func TestEscape_DenySymlinkTargetFileTools(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		decode[sandboxState](t, b.s.call(t, "sandbox/update", map[string]any{"denyRead": []string{b.ws + "/creds"}}))
		out, err := b.hostScript(t, `mkdir -p vault && echo "vault secret" > vault/key && ln -sfn vault/key creds`, "")
		require.NoError(t, err, out)
		sandboxDenied(t, b.s.callErr(t, "tools/read", map[string]any{"path": "vault/key"}), "read", b.ws+"/vault/key")
		r := b.bash(t, "cat vault/key")
		require.NotContains(t, r.Stdout, "vault secret")
	})
}
