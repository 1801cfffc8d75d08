//go:build linux

package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The VS Code test of SPEC §15 drives a real VS Code: code-server 4.100.3
// (VS Code 1.100.3 served to a browser; npm, installed by .ci/install
// outside the repository, see conformance/vscode) shown in Debian's
// headless chromium (driven by playwright-core), since VS Code starts an
// extension's host only for a connected window. A test extension wraps the
// VS Code block of docs/editors.md as it stands (its `import` made a
// `require`): the block's LanguageClient (vscode-languageclient 11) starts
// the server as `toolrpc` from PATH, and the extension's driver code types,
// calls the tools through the block's client, undoes, and logs what it saw
// as JSON, in the shape the Neovim scenarios log, one part per subtest. One
// code-server run serves all the subtests.

// vscodeExtension is the test extension's main: __SNIPPET__ is the docs'
// block, which defines client and hits.
const vscodeExtension = `const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const cfg = require('./config.json');
const out = {};
async function reply(p) {
  try { return { result: await p }; }
  catch (e) { return { err: { code: e.code, message: e.message, data: e.data } }; }
}
async function snippet() {
__SNIPPET__
  return { client, hits };
}
function write() {
  fs.writeFileSync(cfg.out + '.tmp', JSON.stringify(out));
  fs.renameSync(cfg.out + '.tmp', cfg.out);
}
async function scenario() {
  const { client, hits } = await snippet();
  out.hits = { result: hits };
  const call = (m, p) => reply(client.sendRequest(m, p));
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(cfg.root, 'a.txt')));
  const ed = await vscode.window.showTextDocument(doc);
  const select = (line, from, to) => { ed.selection = new vscode.Selection(line, from, line, to); };
  const type = (text) => vscode.commands.executeCommand('type', { text });

  // Unsaved text: line 2 typed over, not saved.
  const u = out.unsaved = {};
  select(1, 0, doc.lineAt(1).text.length);
  await type('typed by the 😀 user');
  u.grep = await call('tools/grep', { pattern: 'typed', outputMode: 'content' });
  u.count = await call('tools/grep', { pattern: 'typed', outputMode: 'count' });
  u.stale = await call('tools/grep', { pattern: 'beta' });
  u.read = await call('tools/read', { path: 'a.txt' });
  u.bash = await call('tools/bash', { command: 'cat a.txt' });
  u.modified = doc.isDirty;
  await vscode.commands.executeCommand('workbench.action.files.revert');
  u.reverted = doc.getText();

  // An edit through the editor, and VS Code's undo.
  const e = out.undo = {};
  e.read = await call('tools/read', { path: 'a.txt' });
  const edit = (r, line) => ({ path: 'a.txt', tag: r.result && r.result.tag,
    ops: [{ op: 'replace', start: 2, lines: [line || 'BETA by the 😀 agent'] }] });
  e.encoding = client.initializeResult.capabilities.positionEncoding;
  e.edit1 = await call('tools/edit', edit(e.read));
  e.buffer1 = doc.getText();
  // The second edit appends after the emoji: its position counts UTF-16.
  e.edit = await call('tools/edit', edit(e.edit1, 'BETA by the 😀 agent, twice'));
  e.buffer = doc.getText();
  e.modified = doc.isDirty;
  e.readEdited = await call('tools/read', { path: 'a.txt' });
  await vscode.commands.executeCommand('undo');
  e.undoneOnce = doc.getText();
  await vscode.commands.executeCommand('undo');
  e.undone = doc.getText();
  e.modifiedUndone = doc.isDirty;
  e.readUndone = await call('tools/read', { path: 'a.txt' });

  // An edit against text typed since the read.
  const s = out.stale = {};
  const r = await call('tools/read', { path: 'a.txt' });
  select(0, 0, 0);
  await type('typed ');
  s.edit = await call('tools/edit', edit(r));
  s.buffer = doc.getText();
  s.read = await call('tools/read', { path: 'a.txt' });
  await client.stop();
}
exports.activate = async function () {
  // The server is 'toolrpc' on PATH, as the block names it. (VS Code gives
  // the extension host the PATH of the user's login shell, not code-server's.)
  process.env.PATH = cfg.bin + path.delimiter + process.env.PATH;
  try { await scenario(); } catch (e) { out.error = String(e && e.stack || e); }
  write();
};
`

// vscodeDriver opens code-server's page (argv[2]) in headless chromium
// and waits for the extension's output file (argv[3]).
const vscodeDriver = `const { chromium } = require(process.env.PLAYWRIGHT);
const fs = require('fs');
(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    await page.goto(process.argv[2]);
    const deadline = Date.now() + 150000;
    while (!fs.existsSync(process.argv[3])) {
      if (Date.now() > deadline) throw new Error('the extension wrote nothing in 150 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
`

// vscodeCache is where .ci/install put conformance/vscode's packages.
func vscodeCache() string {
	if d := os.Getenv("TOOLRPC_VSCODE_CACHE"); d != "" {
		return d
	}
	return "/var/cache/toolrpc-ci/vscode"
}

// vscodeSnippetJS is the VS Code block of docs/editors.md as the extension
// host runs it: its ES import becomes a require (the block has no type
// annotations to strip).
func vscodeSnippetJS(t *testing.T) string {
	block := docsBlock(t, "ts", 0)
	js := regexp.MustCompile(`(?m)^import \{([^}]*)\} from ('[^']*');$`).ReplaceAllString(block, "const {$1} = require($2);")
	require.NotContains(t, js, "import ", "the block's imports are all `import { ... } from '...';`")
	return js
}

// runVSCode starts code-server on root with the test extension, opens it
// in chromium, and returns what the extension logged.
func runVSCode(t *testing.T, root string) map[string]json.RawMessage {
	t.Helper()
	cache := vscodeCache()
	codeServer := filepath.Join(cache, "node_modules", ".bin", "code-server")
	_, err := os.Stat(codeServer)
	require.NoError(t, err, "code-server is installed by .ci/install (conformance/vscode into %s)", cache)
	chromium, err := exec.LookPath("chromium")
	require.NoError(t, err, "chromium is installed by .ci/install (apt chromium)")
	node, err := exec.LookPath("node")
	require.NoError(t, err)

	dir := t.TempDir()
	binDir := filepath.Join(dir, "bin")
	require.NoError(t, os.Mkdir(binDir, 0o755))
	require.NoError(t, os.Symlink(bin, filepath.Join(binDir, serverName)))
	ext := filepath.Join(dir, "extensions", "toolrpc-test.vscode-0.0.1")
	require.NoError(t, os.MkdirAll(ext, 0o755))
	require.NoError(t, os.Symlink(filepath.Join(cache, "node_modules"), filepath.Join(ext, "node_modules")))
	outFile := filepath.Join(dir, "out.json")
	for name, text := range map[string]string{
		"package.json": `{"name": "vscode", "publisher": "toolrpc-test", "version": "0.0.1", "engines": {"vscode": "^1.91.0"},
 "main": "./extension.js", "activationEvents": ["onStartupFinished"]}`,
		"extension.js": strings.Replace(vscodeExtension, "__SNIPPET__", vscodeSnippetJS(t), 1),
		"config.json":  string(must(json.Marshal(map[string]string{"out": outFile, "root": root, "bin": binDir}))),
	} {
		require.NoError(t, os.WriteFile(filepath.Join(ext, name), []byte(text), 0o644))
	}
	userData := filepath.Join(dir, "user-data")
	writeFiles(t, filepath.Join(userData, "User"), map[string]string{"settings.json": `{"workbench.startupEditor": "none",
 "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false, "files.autoSave": "off"}`})
	driver := filepath.Join(dir, "driver.js")
	require.NoError(t, os.WriteFile(driver, []byte(vscodeDriver), 0o644))

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := exec.CommandContext(ctx, codeServer, "--auth", "none", "--bind-addr", "127.0.0.1:"+strconv.Itoa(port),
		"--extensions-dir", filepath.Dir(ext), "--user-data-dir", userData, "--config", filepath.Join(dir, "config.yaml"),
		"--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", root)
	cs.Dir = root
	cs.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(),
		"LANG=C.UTF-8")
	// code-server starts the extension host and more: one process group,
	// ended whole.
	cs.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cs.Cancel = func() error { return syscall.Kill(-cs.Process.Pid, syscall.SIGKILL) }
	logs, err := cs.StdoutPipe()
	require.NoError(t, err)
	cs.Stderr = cs.Stdout
	require.NoError(t, cs.Start())
	var csLog strings.Builder
	listening := make(chan struct{})
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			csLog.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "HTTP server listening on") {
				close(listening)
			}
		}
	}()
	defer func() {
		_ = syscall.Kill(-cs.Process.Pid, syscall.SIGKILL)
		_ = cs.Wait()
		<-logDone
		if t.Failed() {
			t.Logf("code-server:\n%s", csLog.String())
		}
	}()
	select {
	case <-listening:
	case <-logDone:
		t.Fatalf("code-server ended before listening")
	case <-ctx.Done():
		t.Fatalf("code-server did not listen")
	}

	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/?folder=" + root
	drive := exec.CommandContext(ctx, node, driver, url, outFile)
	drive.Env = append(os.Environ(), "PLAYWRIGHT="+filepath.Join(cache, "node_modules", "playwright-core"),
		"CHROMIUM="+chromium, "HOME="+t.TempDir())
	// chromium, too, is ended whole, even when the driver is killed.
	drive.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	drive.Cancel = func() error { return syscall.Kill(-drive.Process.Pid, syscall.SIGKILL) }
	defer func() {
		if drive.Process != nil {
			_ = syscall.Kill(-drive.Process.Pid, syscall.SIGKILL)
		}
	}()
	got := runEditor(t, drive, outFile)
	require.NotContains(t, got, "error", "the extension failed: %s", got["error"])
	return got
}

// vscodePart returns one part of what the extension logged.
func vscodePart(t *testing.T, got map[string]json.RawMessage, part string) map[string]json.RawMessage {
	return nvimGet[map[string]json.RawMessage](t, got, part)
}

// TestEditorVSCode checks SPEC §15 (reading, edits, position encodings)
// with a real VS Code attached by the VS Code block of docs/editors.md.
func TestEditorVSCode(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\nbeta\ngamma\n", "todo.txt": "one\nTODO: the block's own call\n"})
	got := runVSCode(t, root)

	// The block's own tools/grep call, made right after client.start().
	t.Run("BlockCallsTheTools", func(t *testing.T) {
		hits := nvimResult[editorGrep](t, got, "hits")
		require.Len(t, hits.Matches, 1)
		require.Equal(t, "todo.txt", hits.Matches[0].Path)
		require.Equal(t, 2, hits.Matches[0].Line)
	})

	// Text typed into a VS Code editor and not saved is what tools/grep
	// finds and tools/read shows (source editor, unsaved); bash is told it
	// sees the disk.
	t.Run("UnsavedTextSeen", func(t *testing.T) {
		u := vscodePart(t, got, "unsaved")
		checkUnsavedSeen(t, u, root, "typed by the 😀 user")
		require.True(t, nvimGet[bool](t, u, "modified"))
		require.Equal(t, "alpha\nbeta\ngamma\n", nvimGet[string](t, u, "reverted"))
	})

	// tools/edit of an open file arrives as a workspace/applyEdit that
	// changes the VS Code buffer and not the disk, at positions counted in
	// UTF-16 (VS Code's only encoding; the second edit lands after an
	// emoji); each of VS Code's undos takes one edit back.
	t.Run("EditInBufferUndoable", func(t *testing.T) {
		e := vscodePart(t, got, "undo")
		require.Equal(t, "utf-16", nvimGet[string](t, e, "encoding"))
		require.Equal(t, "alpha\nBETA by the 😀 agent\ngamma\n", nvimGet[string](t, e, "buffer1"))
		checkEditUndone(t, e, root, "alpha\nbeta\ngamma\n", "BETA by the 😀 agent, twice")
		require.Equal(t, "alpha\nBETA by the 😀 agent, twice\ngamma\n", nvimGet[string](t, e, "buffer"))
		require.True(t, nvimGet[bool](t, e, "modified"))
		require.Equal(t, "alpha\nBETA by the 😀 agent\ngamma\n", nvimGet[string](t, e, "undoneOnce"), "one undo takes one edit back")
		require.Equal(t, "alpha\nbeta\ngamma\n", nvimGet[string](t, e, "undone"))
		require.False(t, nvimGet[bool](t, e, "modifiedUndone"), "two undos take both edits back")
	})

	// An edit made against text the user has since typed is STALE_TAG with
	// the buffer's tag, and nothing is applied.
	t.Run("StaleVersionRefused", func(t *testing.T) {
		checkStaleRefused(t, vscodePart(t, got, "stale"), root, "edit", "read", "buffer", "typed alpha\nbeta\ngamma\n", "alpha\nbeta\ngamma\n")
	})
}
