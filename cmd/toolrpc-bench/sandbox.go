package main

import (
	"encoding/json"
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
			peer: "same call, --sandbox off", run: sandboxVsOff("true", sandboxRepo)},
		{name: "sandbox: bash -c true in the Linux tree, auto ÷ --sandbox off (setup must not grow with the tree)", driven: drivenLongLived, unit: "ms",
			peer: "same call, --sandbox off", bins: []string{linuxPackage}, run: needsLinux(sandboxVsOff("true", linuxRoot))},
		{name: "sandbox: git status of a 2000-file repository, auto ÷ --sandbox off", driven: drivenLongLived, unit: "ms",
			peer: "same call, --sandbox off", bins: []string{"git"}, run: sandboxVsOff("git status --short >/dev/null", sandboxRepo)},
		{name: "sandbox: go build of a small module (warm cache), auto ÷ --sandbox off", driven: drivenLongLived, unit: "ms",
			peer: "same call, --sandbox off", bins: []string{"go"}, run: sandboxVsOff("go build -o /dev/null .", sandboxModule)},
	}
}

// sandboxVsOff runs command through tools/bash in the directory workdir
// makes, on the long-lived server and on a --sandbox off server.
func sandboxVsOff(command string, workdir func(*bench) (string, error)) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		dir, err := workdir(b)
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
				res, d, err := srv.call("tools/bash", map[string]any{"command": command})
				if err != nil {
					return d, err
				}
				var out struct {
					ExitCode *int `json:"exitCode"`
				}
				if err := json.Unmarshal(res, &out); err != nil {
					return d, err
				}
				if out.ExitCode == nil || *out.ExitCode != 0 {
					return d, fmt.Errorf("%q did not exit 0: %s", command, res)
				}
				return d, nil
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

// sandboxModule returns a Go module of one main package that imports a few
// standard packages, in the state dir, made on first use; the rows' first
// untimed build (under each server's policy) warms the cache.
func sandboxModule(b *bench) (string, error) {
	dir := filepath.Join(b.stateDir, "sandbox-gomod")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	files := map[string]string{
		"go.mod": "module example.com/benchmod\n\ngo 1.22\n",
		"main.go": "package main\n\nimport (\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n)\n\n" +
			"func main() {\n\tb, _ := json.Marshal(strings.Fields(strings.Join(os.Args, \" \")))\n\tfmt.Println(string(b))\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
