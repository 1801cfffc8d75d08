package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// nodePlatform is this machine's platform package suffix in Node's names.
func nodePlatform() string {
	plat, arch := runtime.GOOS, runtime.GOARCH
	if plat == "windows" {
		plat = "win32"
	}
	if arch == "amd64" {
		arch = "x64"
	}
	return plat + "-" + arch
}

// TestNPM_PlatformPackagesInstallOffline packs @toolrpc/client and the six
// @toolrpc/<platform>-<arch> packages (scripts/pack.mjs), installs the
// tarballs into a fresh copy of the VS Code extension example with npm
// --offline and an empty cache, and checks that npm installed only this
// machine's platform package (the others skipped by their os/cpu fields),
// that findBinary resolves the binary from it with no TOOLRPC_BIN and no
// toolrpc on PATH, and that the example runs headless from that install.
//
// Checks SPEC §1 (the server binary a host spawns, per platform).
func TestNPM_PlatformPackagesInstallOffline(t *testing.T) {
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	clientDir := filepath.Join(repo, "clients", "typescript")
	lockDir(t, clientDir)
	node := npmCI(t, clientDir)
	npm, err := exec.LookPath("npm")
	require.NoError(t, err)

	dist := t.TempDir()
	pack := exec.Command(node, filepath.Join(clientDir, "scripts", "pack.mjs"), dist)
	pack.Dir = clientDir
	pack.Stderr = os.Stderr
	out, err := pack.Output()
	require.NoError(t, err, "pack.mjs")
	tarballs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, p, ok := strings.Cut(line, "\t")
		require.True(t, ok, "pack.mjs line %q", line)
		tarballs[name] = p
	}
	require.Len(t, tarballs, 7, "client + six platform packages")
	// The client's one dependency, packed from the client's own install, so
	// nothing is fetched (--ignore-scripts: its prepack would clean its sources).
	dep := exec.Command(npm, "pack", "--ignore-scripts", "--silent", "--pack-destination", dist, "./node_modules/vscode-jsonrpc")
	dep.Dir = clientDir
	b, err := dep.Output()
	require.NoError(t, err, "npm pack vscode-jsonrpc")
	depTar := filepath.Join(dist, strings.TrimSpace(string(b)))

	proj := t.TempDir()
	example := filepath.Join(clientDir, "examples", "vscode-extension")
	for _, f := range []string{"extension.js", "headless.js"} {
		b, err := os.ReadFile(filepath.Join(example, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(proj, f), b, 0o644))
	}
	// The extension's manifest, as extension.js's comment gives it (the
	// example has none in the repository: a package.json there would end
	// @toolrpc/client's self-reference that the in-repo test relies on).
	manifest := map[string]any{"name": "toolrpc-vscode-example", "version": "0.1.0", "private": true, "license": "Apache-2.0",
		"main": "./extension.js", "engines": map[string]string{"vscode": "^1.80.0"}, "activationEvents": []string{"onStartupFinished"}}
	deps := map[string]string{"@toolrpc/client": "file:" + tarballs["@toolrpc/client"], "vscode-jsonrpc": "file:" + depTar}
	optional := map[string]string{}
	for name, p := range tarballs {
		if name != "@toolrpc/client" {
			optional[name] = "file:" + p
		}
	}
	manifest["dependencies"], manifest["optionalDependencies"] = deps, optional
	b, err = json.MarshalIndent(manifest, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(proj, "package.json"), b, 0o644))

	// No toolrpc on PATH, no TOOLRPC_BIN: only the platform package can answer.
	env := []string{"PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + "/usr/bin:/bin", "HOME=" + t.TempDir(),
		"XDG_STATE_HOME=" + t.TempDir()}
	install := exec.Command(npm, "install", "--offline", "--cache", t.TempDir(), "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir, install.Env = proj, env
	b, err = install.CombinedOutput()
	require.NoError(t, err, "npm install --offline:\n%s", b)

	want := []string{"client", nodePlatform()}
	ents, err := os.ReadDir(filepath.Join(proj, "node_modules", "@toolrpc"))
	require.NoError(t, err)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	sort.Strings(want)
	require.Equal(t, want, got, "npm installed other platforms' packages, or not this one")
	var lock struct {
		Packages map[string]struct {
			OS       []string `json:"os"`
			CPU      []string `json:"cpu"`
			Optional bool     `json:"optional"`
		} `json:"packages"`
	}
	b, err = os.ReadFile(filepath.Join(proj, "package-lock.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &lock))
	skipped := 0
	for name := range tarballs {
		if name == "@toolrpc/client" || name == "@toolrpc/"+nodePlatform() {
			continue
		}
		e, ok := lock.Packages["node_modules/"+name]
		require.True(t, ok, "%s missing from package-lock.json", name)
		require.True(t, e.Optional, "%s not optional", name)
		plat, arch, _ := strings.Cut(strings.TrimPrefix(name, "@toolrpc/"), "-")
		require.Equal(t, []string{plat}, e.OS, name)
		require.Equal(t, []string{arch}, e.CPU, name)
		skipped++
	}
	require.Equal(t, 5, skipped)

	find := exec.Command(node, "-e", "process.stdout.write(require('@toolrpc/client').findBinary())")
	find.Dir, find.Env = proj, env
	b, err = find.Output()
	require.NoError(t, err, "findBinary")
	require.Equal(t, filepath.Join(proj, "node_modules", "@toolrpc", nodePlatform(), "bin", "toolrpc"), string(b))

	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "src", "app.js"), []byte("const a = 1;\n// TODO: ship it\n"), 0o644))
	run := exec.Command(node, "headless.js", ws)
	run.Dir, run.Env = proj, env
	b, err = run.Output()
	require.NoError(t, err, "headless VS Code example")
	var res struct {
		Output    string `json:"output"`
		Search    int    `json:"search"`
		Run       int    `json:"run"`
		Cancelled string `json:"cancelled"`
	}
	require.NoError(t, json.Unmarshal(b, &res), "%s", b)
	require.Equal(t, "src/app.js:2: // TODO: ship it\nline 1\nline 2\nline 3\n[exit 0]\nstarting\n[cancelled; 9 bytes of stdout before]\n", res.Output)
	require.Equal(t, []any{1, 0, "starting\n"}, []any{res.Search, res.Run, res.Cancelled})
}
