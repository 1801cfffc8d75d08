package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toolrpc/toolrpc/client"
	"github.com/toolrpc/toolrpc/internal/attack"
	"github.com/toolrpc/toolrpc/wire"
)

// attackTimeout bounds one attack in one sandbox.
const attackTimeout = 2 * time.Minute

// sandbox runs one attack's attack.sh confined.
type sandbox interface {
	name() string
	// program is what must be on PATH (or a path) for it to run; "" leaves
	// the sandbox out.
	program() string
	// run runs c.Attack confined with box's variables, cwd = the workspace,
	// and returns what it printed.
	run(box *attack.Box, c attack.Case, mark string) (string, error)
}

// policyOf is c's policy.json as toolrpc's policy.
func policyOf(c attack.Case) (wire.SandboxPolicy, error) {
	var p wire.SandboxPolicy
	if c.Policy == nil {
		return p, nil
	}
	b, err := json.Marshal(c.Policy)
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	return p, err
}

// toolrpcSandbox runs attack.sh as a tools/bash call of a toolrpc server on
// the workspace, under the attack's policy (default: auto).
type toolrpcSandbox struct{ bin string }

func (s toolrpcSandbox) name() string    { return "toolrpc" }
func (s toolrpcSandbox) program() string { return s.bin }

func (s toolrpcSandbox) run(box *attack.Box, c attack.Case, mark string) (string, error) {
	policy, err := policyOf(c)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), attackTimeout)
	defer cancel()
	cmd := exec.Command(s.bin)
	cmd.Dir = box.WS
	cmd.Env = append(os.Environ(), "HOME="+box.Home)
	conn, err := client.Start(cmd, client.Options{Sandbox: &policy})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.Initialize(ctx, &protocol.InitializeParams{
		RootURI:               protocol.DocumentURI(uri.File(box.WS)),
		InitializationOptions: map[string]any{"dataDir": filepath.Join(box.Base, "data")},
	}); err != nil {
		return "", err
	}
	env := wire.StringMap{}
	for _, kv := range box.Env(mark) {
		if k, v, _ := strings.Cut(kv, "="); k != "HOME" {
			env[k] = v
		}
	}
	r, err := conn.Bash(ctx, wire.BashParams{Command: c.Attack, Env: env})
	if err != nil {
		return "", err
	}
	return r.Stdout + r.Stderr, nil
}

// codexSandbox runs attack.sh under `codex sandbox -P :workspace` (Codex's
// workspace-write: the workspace, /tmp and $TMPDIR writable; .git read-only),
// or `-P :read-only` for a policy.json's mode read-only. Codex's profiles
// have no deny list for reads: a policy.json's network "off" is its
// default, and its writable and denyRead have no equivalent there.
type codexSandbox struct{ bin string }

func (s codexSandbox) name() string    { return "codex" }
func (s codexSandbox) program() string { return s.bin }

func (s codexSandbox) run(box *attack.Box, c attack.Case, mark string) (string, error) {
	policy, err := policyOf(c)
	if err != nil {
		return "", err
	}
	profile := ":workspace"
	if policy.Mode == wire.SandboxReadOnly {
		profile = ":read-only"
	}
	// Codex refuses to make its helper binaries under /tmp, where a box
	// (Workspace: /tmp) would put its home: its CODEX_HOME is kept apart.
	home, err := os.MkdirTemp("/var/tmp", "toolrpc-attack-codex-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	return confined(box, append([]string{"CODEX_HOME=" + home}, box.Env(mark)...), s.bin, "sandbox", "-P", profile, "-C", box.WS, "--", "bash", "-c", c.Attack)
}

// srtSandbox runs attack.sh under `srt -s SETTINGS -c`, its settings the
// workspace (unless the policy's mode is read-only) and /tmp writable, §14's deny list unreadable, no network
// domain allowed, plus the policy's writable and denyRead.
type srtSandbox struct{ bin string }

func (s srtSandbox) name() string    { return "srt" }
func (s srtSandbox) program() string { return s.bin }

func (s srtSandbox) run(box *attack.Box, c attack.Case, mark string) (string, error) {
	policy, err := policyOf(c)
	if err != nil {
		return "", err
	}
	deny := []string{}
	for _, p := range denyList {
		deny = append(deny, filepath.Join(box.Home, p))
	}
	deny = append(deny, policy.DenyRead...)
	writable := []string{box.WS, "/tmp"}
	if policy.Mode == wire.SandboxReadOnly {
		writable = []string{"/tmp"}
	}
	settings := map[string]any{
		"filesystem": map[string]any{"denyRead": deny, "allowWrite": append(writable, policy.Writable...), "denyWrite": []string{}},
		"network":    map[string]any{"allowedDomains": []string{}, "deniedDomains": []string{}},
	}
	b, err := json.Marshal(settings)
	if err != nil {
		return "", err
	}
	path := filepath.Join(box.Base, "srt-settings.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return "", err
	}
	return confined(box, box.Env(mark), s.bin, "-s", path, "-c", c.Attack)
}

// denyList is SPEC §14's default deny list, under the home.
var denyList = []string{".ssh/id_ed25519", ".gnupg", ".aws", ".config/gcloud", ".azure", ".kube",
	".docker/config.json", ".netrc", ".git-credentials", ".config/gh/hosts.yml"}

// confined runs a peer's command line with env added to this process's
// environment, cwd = the workspace, bounded by attackTimeout.
func confined(box *attack.Box, env []string, bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), attackTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = box.WS
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), fmt.Errorf("timed out after %v", attackTimeout)
	}
	return string(out), err
}
