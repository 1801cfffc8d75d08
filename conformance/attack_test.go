package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/attack"
)

// The attack suite (SPEC §14): each file testdata/attacks/NAME.txtar is one
// attempt to get out of the sandbox, in internal/attack's format, so that the
// same file runs against toolrpc (TestEscape_*, through runAttack) and
// against the peers' sandboxes (cmd/toolrpc-attack). attack.sh runs as a
// tools/bash command; setup.sh, after.sh and check.sh run on the host as the
// user the server runs as. attack.sh's exit code is not judged, only
// check.sh's.

// attackBox is b's places as the attack scripts see them.
func (b *sandboxBox) attackBox() *attack.Box {
	return &attack.Box{Home: b.home, WS: b.ws, Outside: b.outside}
}

// hostScript runs script on the host, outside the sandbox, as the user b's
// server runs as, with the attack variables (mark as MARK).
func (b *sandboxBox) hostScript(t *testing.T, script, mark string) (string, error) {
	t.Helper()
	return b.attackBox().Host(script, mark, b.uid)
}

// runAttack runs testdata/attacks/name.txtar against the server, as each
// user its Users: line names, and fails the test when check.sh says the
// attack got through.
func runAttack(t *testing.T, name string) {
	c, err := attack.Load(filepath.Join("testdata", "attacks"), name)
	require.NoError(t, err)
	forEachUser(t, func(t *testing.T, asRoot bool) {
		switch u := c.Users(); {
		case u == "root" && !asRoot:
			return
		case u == "unprivileged" && asRoot:
			return
		}
		b := newSandboxBoxIn(t, c.Workspace(), asRoot, c.Policy)
		box := b.attackBox()
		mark := fmt.Sprintf("toolrpc-attack-%s-%d", name, os.Getpid())
		if c.Setup != "" {
			out, err := b.hostScript(t, c.Setup, mark)
			require.NoError(t, err, "setup.sh: %s", out)
		}
		env := map[string]any{}
		for _, kv := range box.Env(mark) {
			if k, v, _ := strings.Cut(kv, "="); k != "HOME" {
				env[k] = v
			}
		}
		r := decode[sandboxBash](t, b.s.call(t, "tools/bash", map[string]any{"command": c.Attack, "env": env}))
		if c.After != "" {
			out, err := b.hostScript(t, c.After, mark)
			t.Logf("after.sh (%v): %s", err, out)
		}
		out, err := b.hostScript(t, c.Check, mark)
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

// TestAttackSuiteIsRun checks SPEC §14's attack suite is run whole: every
// file of testdata/attacks that is not a stated gap (its Gap: line) has a
// TestEscape_* or TestSandbox_* test calling runAttack with its name, and a
// stated gap has none (it would fail).
func TestAttackSuiteIsRun(t *testing.T) {
	cases, err := attack.LoadAll(filepath.Join("testdata", "attacks"))
	require.NoError(t, err)
	srcs, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	var all strings.Builder
	for _, f := range srcs {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		all.Write(b)
	}
	for _, c := range cases {
		run := strings.Contains(all.String(), `runAttack(t, "`+c.Name+`")`)
		if c.Gap() != "" {
			require.False(t, run, "%s is a stated gap but a test runs it", c.Name)
			continue
		}
		require.True(t, run, "no test runs attack %s", c.Name)
	}
}
