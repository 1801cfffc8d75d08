package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// sandboxRows measure what the sandbox (SPEC §14) costs a command: the same
// tools/bash call on the run's server (sandbox auto) and on one started with
// --sandbox off, interleaved.
func sandboxRows() []scenario {
	return []scenario{
		{name: "sandbox: bash -c true, auto ÷ --sandbox off (setup cost = the difference of the medians)", driven: drivenLongLived, unit: "ms",
			peer: "same call, --sandbox off", run: sandboxVsOff("true")},
		{name: "sandbox: git status of a 2000-file repository, auto ÷ --sandbox off", driven: drivenLongLived, unit: "ms",
			peer: "same call, --sandbox off", bins: []string{"git"}, run: sandboxVsOff("git status --short >/dev/null")},
	}
}

// sandboxVsOff runs command through tools/bash in the repository on the
// long-lived server and on a --sandbox off server.
func sandboxVsOff(command string) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		dir, err := sandboxRepo(b)
		if err != nil {
			return err
		}
		s, err := b.longLived(dir)
		if err != nil {
			return err
		}
		off, err := startServer(serverConfig{bin: b.bin, root: dir, dataDir: b.stateDir, args: []string{"--sandbox", "off"}})
		if err != nil {
			return err
		}
		defer off.conn.Kill()
		call := func(srv *server) func() (time.Duration, error) {
			return func() (time.Duration, error) {
				_, d, err := srv.call("tools/bash", map[string]any{"command": command})
				return d, err
			}
		}
		as, ps, err := interleave(b.cfg.rttCalls, call(s), call(off))
		if err != nil {
			return err
		}
		setFigures(r, as, ps)
		r.Note = fmt.Sprintf("median of %d calls each; setup cost %.2f ms", len(as), r.ToolrpcValue-r.PeerValue)
		return nil
	}
}

// sandboxRepo returns a git repository of 2000 committed files in the
// state dir, made on first use.
func sandboxRepo(b *bench) (string, error) {
	dir := filepath.Join(b.stateDir, "sandbox-repo")
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return dir, nil
	}
	script := `set -e; mkdir -p "$1"; cd "$1"; git init -q; for d in $(seq 1 20); do mkdir -p d$d; ` +
		`for f in $(seq 1 100); do echo "$d $f" > d$d/f$f.txt; done; done; ` +
		`git add -A; git -c user.name=bench -c user.email=bench@example.com commit -qm files`
	if out, err := exec.Command("bash", "-c", script, "bash", dir).CombinedOutput(); err != nil {
		return "", fmt.Errorf("make %s: %v: %s", dir, err, out)
	}
	return dir, nil
}
