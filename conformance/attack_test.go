package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The attack suite (SPEC §14): each file testdata/attacks/NAME.txtar is one
// attempt to get out of the sandbox, written so that the same file runs
// against toolrpc (TestEscape_*, through runAttack) and against the peers'
// sandboxes (cmd/toolrpc-attack). Its sections:
//
//	Rows: 7                    (comment) the rows it reproduces
//	Section: §14               (comment) the contract it checks
//	Users: both | root | unprivileged   (comment) who the server runs as; default both
//	Peers: yes | no            (comment) whether it applies to a command sandbox
//	                           in general (no: it attacks toolrpc's own server)
//	-- policy.json --          optional: initializationOptions.sandbox
//	-- setup.sh --             optional: run by the host before, outside the sandbox
//	-- attack.sh --            run inside the sandbox, as a tools/bash command
//	-- after.sh --             optional: the host's next act, outside (git status, ...)
//	-- check.sh --             outside: exit 0 = held, exit 1 = escaped; prints why
//
// The scripts run under bash with cwd = $WS and these variables: WS (the
// workspace, a git repository), HOME (the box's home, holding .ssh/id_ed25519,
// .aws/credentials and .bashrc), OUTSIDE (a directory no policy makes
// writable, holding f), MARK (a token unique to the run, for files an attack
// leaves). setup.sh, after.sh and check.sh run as the user the server runs as;
// attack.sh's exit code is not judged, only check.sh's.

// attackCase is one parsed testdata/attacks file.
type attackCase struct {
	name                        string
	comment                     string
	policy                      map[string]any
	setup, attack, after, check string
}

// loadAttack reads testdata/attacks/name.txtar.
func loadAttack(t *testing.T, name string) attackCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "attacks", name+".txtar"))
	require.NoError(t, err)
	a := parseArchive(string(data))
	c := attackCase{name: name, comment: a.Comment}
	if p, ok := a.file("policy.json"); ok {
		require.NoError(t, json.Unmarshal([]byte(p), &c.policy), "%s: policy.json", name)
	}
	c.setup, _ = a.file("setup.sh")
	c.after, _ = a.file("after.sh")
	var ok bool
	c.attack, ok = a.file("attack.sh")
	require.True(t, ok, "%s has no attack.sh", name)
	c.check, ok = a.file("check.sh")
	require.True(t, ok, "%s has no check.sh", name)
	return c
}

// users is the comment's Users: line (default "both").
func (c attackCase) users() string {
	for line := range strings.SplitSeq(c.comment, "\n") {
		if v, ok := strings.CutPrefix(line, "Users:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "both"
}

// hostScript runs script on the host, outside the sandbox, as the user the
// box's server runs as, with the attack variables set.
func (b *sandboxBox) hostScript(t *testing.T, script, mark string) (string, error) {
	t.Helper()
	args := []string{"bash", "-c", script}
	if b.uid != os.Geteuid() {
		args = append([]string{"setpriv", fmt.Sprintf("--reuid=%d", b.uid), fmt.Sprintf("--regid=%d", b.uid), "--clear-groups"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = b.ws
	cmd.Env = append(os.Environ(), b.attackEnv(mark)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// attackEnv is the variables every attack script sees.
func (b *sandboxBox) attackEnv(mark string) []string {
	return []string{"WS=" + b.ws, "HOME=" + b.home, "OUTSIDE=" + b.outside, "MARK=" + mark}
}

// runAttack runs testdata/attacks/name.txtar against the server, as each
// user its Users: line names, and fails the test when check.sh says the
// attack got through.
func runAttack(t *testing.T, name string) {
	c := loadAttack(t, name)
	forEachUser(t, func(t *testing.T, asRoot bool) {
		switch u := c.users(); {
		case u == "root" && !asRoot:
			return
		case u == "unprivileged" && asRoot:
			return
		}
		b := newSandboxBox(t, asRoot, c.policy)
		mark := fmt.Sprintf("toolrpc-attack-%s-%d", name, os.Getpid())
		if c.setup != "" {
			out, err := b.hostScript(t, c.setup, mark)
			require.NoError(t, err, "setup.sh: %s", out)
		}
		env := map[string]any{}
		for _, kv := range b.attackEnv(mark) {
			k, v, _ := strings.Cut(kv, "=")
			if k != "HOME" {
				env[k] = v
			}
		}
		r := decode[sandboxBash](t, b.s.call(t, "tools/bash", map[string]any{"command": c.attack, "env": env}))
		if c.after != "" {
			out, err := b.hostScript(t, c.after, mark)
			t.Logf("after.sh (%v): %s", err, out)
		}
		out, err := b.hostScript(t, c.check, mark)
		require.NoError(t, err, "attack %s got through: %s\nattack's stdout: %s\nstderr: %s", name, out, r.Stdout, r.Stderr)
	})
}

// TestEscape_DirectWriteOutside checks SPEC §14 and is the attack suite's
// baseline (testdata/attacks/direct-write-outside.txtar): a plain write to a
// file outside the writable set is refused.
func TestEscape_DirectWriteOutside(t *testing.T) { runAttack(t, "direct-write-outside") }

// TestEscape_SSHKeySymlink checks SPEC §14 (issue 46 row 11;
// testdata/attacks/ssh-key-symlink.txtar): a symlinked ~/.ssh/id_* is
// denied at its target too, as a plain deny entry's target is.
func TestEscape_SSHKeySymlink(t *testing.T) { runAttack(t, "ssh-key-symlink") }
