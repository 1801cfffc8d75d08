package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toolrpc/toolrpc/client"
)

// podmanExceptions are the tests the re-run through `podman exec -i` leaves
// out, each for a reason of the transport, not of the server:
//   - TestRemote_, TestContainer_, TestWine_: they start their own sshd,
//     containers or Wine; the re-run must not recurse.
//   - TestSandbox_ make a home and a workspace on this machine (under
//     /var/tmp, owned by a user setpriv becomes) and read what the server
//     did there; in a container the server's files, users and home are the
//     container's. The sandbox itself runs in the container: every command
//     of the re-run goes through it under the default auto.
//   - TestHostile_UnreadableFiles runs the binary under setpriv as nobody;
//     through podman that is the podman client, which nobody may not run.
//     In a container the server's user is the exec's --user.
//   - TestEnding_HostStopsReading watches the local process (the podman
//     client) exit while its stdout is unread; that tests podman.
//   - TestMCP_CancelKillsWholeTree counts progress notifications that
//     arrive after the client sent notifications/cancelled; through podman
//     exec (conmon relays the streams) chunks the server wrote before it
//     read the cancel are still in flight then. The server's side — no
//     chunk after it handled the cancel, the tree killed — is what
//     TestCriterion13_AbortKillsTree checks through podman.
//   - TestHostDeath_ProcessIDDiesPipesOpen needs a host that is an ancestor
//     of the server; no process outside the container is one.
//   - The SPEC §13 tests that drive programs the minimal image does not
//     have (TestProcess_InputDetected: python3, node; _InputEchoOff:
//     ssh-keygen; _NoInputWhenBusy: python3; _AlternateScreen: less, vim;
//     _PortEvent: python3 -m http.server; _InputNeovim: nvim, git;
//     _InputOtherThread: python3, go; _WriteThenWait: vim, git, python3;
//     _ScreenPrompt: top, less, vim; the txtar cases process_input and
//     process_events, hence TestTxtar). The detector itself works in the
//     container: TestContainer_ProcessEvents sees input on a pty and on a
//     pipe, echo off, and a listening port there with bash and perl, which
//     the image has; and TestContainer_ProcessesOverPodman runs every SPEC
//     §13 test and TestTxtar in the tools image, which has those programs.
var podmanExceptions = []string{
	"TestEditor", // SPEC §15: Neovim, Emacs and VS Code start their own server; the editor tests run once, locally
	"TestRemote_",
	"TestContainer_",
	"TestWine_",
	"TestSandbox_",
	"TestEscape_", // SPEC §14: like TestSandbox_, they set up users and homes on this machine
	"TestSession_SandboxConfinesAndUpdateEnds$", // the same
	"TestHostile_UnreadableFiles$",
	"TestEnding_HostStopsReading$",
	"TestHostDeath_ProcessIDDiesPipesOpen$",
	"TestMCP_CancelKillsWholeTree$",
	"TestProcess_InputDetected$",
	"TestProcess_InputEchoOff$",
	"TestProcess_NoInputWhenBusy$",
	"TestProcess_AlternateScreen$",
	"TestProcess_PortEvent$",
	"TestProcess_InputNeovim$",
	"TestProcess_InputOtherThread$",
	"TestProcess_WriteThenWait$",
	"TestProcess_ScreenPrompt$",
	"TestTxtar$",
	"TestMCP_EOFHostStopsReading$",
	// SPEC §16 and §12: the dialects (the Codex differential runs Codex on
	// this machine) and the load at initialize (a known tree made here)
	// test engines, not the transport; shell sessions do run in the
	// container (its PID namespace and image).
	"TestDialect", "TestApplyPatch", "TestStrReplace", "TestInsertTakes", "TestGemini", "TestToolset",
	"TestMCPToolset", "TestEveryDialect", "TestAnthropicBash", "TestCodexExec", "TestPrewarm",
	"TestSession_StatePersists$", // its venv case needs python3, which the minimal image lacks
	"TestNPM_",                   // the npm packages start their own binary, found by the client; no -bin, no transport
	// Engines too: the content index (built and reused) and the glob cap
	// over a 200,000-file tree made here; the transport carries one reply
	// each, as the rest of the re-run's greps and globs do.
	"TestContentIndex", "TestFirstGrepAnswersBeforeTheIndexBuild$", "TestHostile_GlobHugeTreeCapped$",
}

// TestContainer_SuiteOverPodman re-runs this test binary — the whole suite —
// with -bin pointing at a wrapper that runs the server in a podman container
// (`podman exec -i -w DIR ctr toolrpc`), and requires every test it lists to
// pass, except podmanExceptions. The server is the static release build.
//
// What the container shares with this machine, and why:
//   - TMPDIR of the re-run is a dir mounted at the same path, so every
//     workspace and data dir a test makes is one path on both sides.
//   - A dir under /var/tmp (outsideTmpEnv), at the same path: the
//     TypeScript client's sandbox test needs a workspace that no policy
//     makes writable, which /tmp and TMPDIR are not.
//   - GOROOT, read-only: TestLoad_MixedConcurrentCalls greps it as a large
//     real tree (an external root).
//   - The PID namespace (--pid=host): the suite's hosts (node/host.js, the
//     TypeScript client's tests, TestMCPNodeClient) check through /proc the
//     pids their commands print, which in a private namespace name other
//     processes here. The processId rule still applies: no process of the
//     suite is an ancestor of a server podman exec starts (conmon detaches).
//     Private namespaces are the TestContainer_* cases below.
//
// Checks SPEC §12 Remote (every section, through podman exec -i).
func TestContainer_SuiteOverPodman(t *testing.T) {
	// The re-runs are the suite's longest tests and mostly wait (on
	// servers, sshd, podman, Wine), so they run beside each other, after
	// the other tests; lockDir makes their npm builds take turns.
	t.Parallel()
	ws := containerTempDir(t)
	outside := outsideTmpDir(t)
	goroot := runtime.GOROOT()
	c := startContainer(t, bookwormImage, ws, "--pid=host", "-v", goroot+":"+goroot+":ro", "-v", outside+":"+outside)
	wrapper := c.writeWrapper(t, podmanWrapper{})
	runSuiteThrough(t, "podman", wrapper, podmanExceptions, "TMPDIR="+ws, pidnsEnv+"="+c.PIDNS, outsideTmpEnv+"="+outside)
}

// TestContainer_ProcessesOverPodman re-runs every SPEC §13 test
// (TestProcess_*, and TestTxtar for its process_input and process_events
// cases) with the server in a container of toolsImage, which has
// the programs they drive (the minimal image of TestContainer_SuiteOverPodman
// lacks them, hence its exceptions), through `podman exec -i`, with what
// that test shares (TMPDIR, the host's PID namespace).
//
// Checks SPEC §13 (every section, through podman exec -i).
func TestContainer_ProcessesOverPodman(t *testing.T) {
	// The re-runs are the suite's longest tests and mostly wait (on
	// servers, sshd, podman, Wine), so they run beside each other, after
	// the other tests; lockDir makes their npm builds take turns.
	t.Parallel()
	ws := containerTempDir(t)
	c := startContainer(t, toolsImage, ws, "--pid=host")
	wrapper := c.writeWrapper(t, podmanWrapper{})
	runTestsThrough(t, "podman", wrapper, "^(TestProcess_|TestTxtar$)", nil, "TMPDIR="+ws, pidnsEnv+"="+c.PIDNS)
}

// inContainer makes the rest of the test start servers through a wrapper
// into c (a private PID namespace: pids the wrapper reports are mapped to
// this machine's) and returns options that put the server's workspace and
// data dir in c's mounted dir.
func inContainer(t *testing.T, c *container, w podmanWrapper) []option {
	useBin(t, c.writeWrapper(t, w))
	t.Setenv(pidnsEnv, c.PIDNS)
	return []option{withRoot(containerDir(t, c)), withDataDir(containerDir(t, c))}
}

// containerDir is a fresh dir in c's mounted workspace.
func containerDir(t *testing.T, c *container) string {
	dir, err := os.MkdirTemp(c.WS, "d-")
	require.NoError(t, err)
	return dir
}

// TestContainer_HostDeath ends the host side of `podman exec -i` while a
// call in the container runs a tree with a setsid grandchild: the host
// closes stdin, the podman client is SIGKILLed, or the container is
// stopped. The server must end and take the whole tree with it; on stdin
// EOF and client SIGKILL it also finishes its shutdown (scratch dir gone).
// After `podman stop` (SIGKILL of everything in the container) a restarted
// container runs nothing of the call, and the next server sweeps the dead
// session's scratch dir (SPEC §7). The times are logged (go test -v).
func TestContainer_HostDeath(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, c *container, rc *remoteCall)
	}{
		{"stdin EOF", func(t *testing.T, _ *container, rc *remoteCall) {
			require.NoError(t, rc.s.stdin.Close())
			require.Equal(t, 0, rc.s.waitExit(t), "podman exec relays the exit status: EOF is shutdown + exit")
		}},
		{"podman exec client SIGKILL", func(t *testing.T, _ *container, rc *remoteCall) {
			require.Equal(t, "podman", comm(rc.s.cmd.Process.Pid))
			require.NoError(t, rc.s.cmd.Process.Kill())
		}},
		{"podman stop", func(t *testing.T, c *container, _ *remoteCall) {
			podman(t, "stop", "-t", "1", c.Name)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startContainer(t, bookwormImage, "")
			opts := inContainer(t, c, podmanWrapper{})
			rc := startRemoteCall(t, bin, hostDeathCommand, opts...)
			scratch := filepath.Join(rc.s.DataDir, "scratch", rc.s.SessionID)
			// A call's stdout is cut and spilled when the call ends (SPEC §6.3),
			// so a second, short call beside the running one makes the session's
			// scratch dir, whose removal shows a finished shutdown.
			rc.s.call(t, "tools/bash", map[string]any{"command": "seq 1 100000"})
			eventually(t, "a call spilled its cut output", func() (bool, string) {
				_, err := os.Stat(scratch)
				return err == nil, scratch
			})
			killed := time.Now()
			tc.end(t, c, rc)
			if tc.name != "podman stop" {
				took := rc.requireRemoteGone(t, killed)
				t.Logf("%s: server and its call tree gone %v after the host side died", tc.name, took.Round(time.Millisecond))
				return
			}
			eventually(t, "the server exited and no process of its call survives", func() (bool, string) {
				m := marked(rc.mark)
				return !alive(rc.pid) && len(m) == 0, fmt.Sprintf("server alive %v, call processes %v", alive(rc.pid), m)
			})
			t.Logf("podman stop -t 1: server and its call tree gone %v after the stop began", time.Since(killed).Round(time.Millisecond))
			rc.s.waitExit(t) // the podman client ends with its container
			podman(t, "start", c.Name)
			c.PIDNS = c.pidns(t)
			t.Setenv(pidnsEnv, c.PIDNS)
			require.Empty(t, marked(rc.mark), "a process of the call runs in the restarted container")
			next := start(t, withRoot(rc.s.Root), withDataDir(rc.s.DataDir))
			next.call(t, "tools/list", nil)
			eventually(t, "the next server swept the dead session's scratch dir", func() (bool, string) {
				_, err := os.Stat(scratch)
				return os.IsNotExist(err), scratch
			})
		})
	}
}

// TestContainer_ProcessIDIgnored: the host's pid means nothing in the
// container's PID namespace. Before the ancestor rule the server exited at
// once ("host process N is gone") when it named no process there, and
// watched a stranger when it did (pid 1, the container's init, here).
//
// Checks SPEC §1 (processId), §12 Remote.
func TestContainer_ProcessIDIgnored(t *testing.T) {
	c := startContainer(t, bookwormImage, "")
	opts := inContainer(t, c, podmanWrapper{})
	for _, pid := range []int{os.Getpid(), 1} {
		t.Run(fmt.Sprint(pid), func(t *testing.T) {
			s := start(t, append(opts, withInitParams(func(p map[string]any) { p["processId"] = pid }))...)
			r := decode[bashRes](t, s.call(t, "tools/bash", map[string]any{"command": "echo serving"}))
			require.Equal(t, "serving\n", r.Stdout)
			eventually(t, "the server logs that it ignores processId", func() (bool, string) {
				return strings.Count(s.stderr.String(), notAncestorLine(pid)) == 1, s.stderr.String()
			})
		})
	}
}

// TestContainer_ExecTtyManglesFrames shows why hosts must not pass -t to
// `podman exec` (nor docker's or kubectl's): as under `ssh -tt`
// (TestRemote_PtyManglesFrames) the terminal echoes the request, turns the
// header's \r\n into \n, holds the body until a newline, joins stderr to
// stdout and writes \r\r\n for \r\n. Worse than over ssh, host death is
// lost: the pty belongs to conmon, which outlives the client, so neither
// stdin EOF nor the client's SIGKILL reaches the server — it runs until
// the container stops.
//
// Checks SPEC §1 (frames), §12 Remote.
func TestContainer_ExecTtyManglesFrames(t *testing.T) {
	c := startContainer(t, bookwormImage, "")
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"rootUri": "file://" + c.WS, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"dataDir": containerDir(t, c)}}})
	require.NoError(t, err)
	frame := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	mapPID := func(p int) int { return hostPID(c.PIDNS, p) }

	plain := runRawIn(t, c.writeWrapper(t, podmanWrapper{name: "plain"}), c.WS, mapPID)
	plain.write(t, frame)
	plain.waitFor(t, `"scratchDir"`)

	tty := runRawIn(t, c.writeWrapper(t, podmanWrapper{name: "tty", exec: []string{"-t"}}), c.WS, mapPID)
	requirePtyMangles(t, tty, frame)

	pid := tty.remotePID(t)
	require.True(t, alive(pid))
	require.NoError(t, tty.in.(io.Closer).Close())
	require.NoError(t, tty.cmd.Process.Kill())
	_ = tty.cmd.Wait()
	// Give a server that would notice every chance: a podman round trip
	// later it still runs (a plain exec's server is gone by then, see
	// TestContainer_HostDeath).
	c.exec(t, "true")
	require.True(t, alive(pid), "the server noticed the host's death through the pty")
	t.Logf("podman exec -t: the server (pid %d here) outlives stdin EOF and the client's SIGKILL; it ends with the container", pid)
}

// TestContainer_ReadOnlyRoot runs the server in a container whose root
// filesystem is read-only, with a tmpfs for --data-dir: spills land there
// and read back. Without --data-dir the default state dir
// (~/.local/state/toolrpc) cannot be created: calls still answer, a cut
// says so without a spill path, and the server logs why.
//
// Checks SPEC §6.3, §7, §12 Remote.
func TestContainer_ReadOnlyRoot(t *testing.T) {
	c := startContainer(t, bookwormImage, "", "--read-only", "--tmpfs", "/data:rw,mode=0700")
	opts := inContainer(t, c, podmanWrapper{})
	noDataDir := withInitParams(func(p map[string]any) { delete(p["initializationOptions"].(map[string]any), "dataDir") })

	s := start(t, append(opts, withArgs("--data-dir", "/data"), noDataDir)...)
	require.True(t, strings.HasPrefix(s.ScratchDir, "/data/scratch/"), s.ScratchDir)
	r := decode[bashRes](t, s.call(t, "tools/bash", map[string]any{"command": "seq 100000"}))
	require.True(t, r.Truncated)
	require.NotNil(t, r.StdoutInfo.Spill)
	spill := *r.StdoutInfo.Spill
	require.True(t, strings.HasPrefix(spill, s.ScratchDir+"/"), spill)
	require.Contains(t, r.Stdout, "Full output saved to "+spill)
	read := decode[struct {
		Content string `json:"content"`
	}](t, s.call(t, "tools/read", map[string]any{"path": spill, "offset": 4001, "limit": 1}))
	require.Contains(t, read.Content, "4001")
	w := s.call(t, "tools/write", map[string]any{"path": "out.txt", "content": "written\n"})
	require.NotNil(t, w)
	b, err := os.ReadFile(filepath.Join(s.Root, "out.txt"))
	require.NoError(t, err)
	require.Equal(t, "written\n", string(b), "the mounted workspace stays writable")

	d := start(t, append(opts, noDataDir)...)
	r = decode[bashRes](t, d.call(t, "tools/bash", map[string]any{"command": "seq 100000"}))
	require.True(t, r.Truncated)
	require.Nil(t, r.StdoutInfo.Spill)
	require.Contains(t, r.Stdout, "[truncated: kept the first 4000 of 100000 lines")
	require.NotContains(t, r.Stdout, "Full output saved")
	eventually(t, "the server logs why nothing was spilled", func() (bool, string) {
		return strings.Contains(d.stderr.String(), "read-only file system"), d.stderr.String()
	})
	r = decode[bashRes](t, d.call(t, "tools/bash", map[string]any{"command": "echo still serving"}))
	require.Equal(t, "still serving\n", r.Stdout)
}

// TestContainer_NoBash runs the server in the busybox image — /bin/sh is
// busybox ash, there is no bash and no libc (the static build needs none).
// tools/bash falls back to `sh -c` (SPEC §6), cuts and cancels as with
// bash: a cancelled tree with a setsid grandchild leaves nothing behind.
func TestContainer_NoBash(t *testing.T) {
	c := startContainer(t, busyboxImage, "")
	require.Contains(t, podmanOut(t, "exec", c.Name, "sh", "-c", "command -v bash || echo none"), "none")
	opts := inContainer(t, c, podmanWrapper{})
	s := start(t, opts...)
	r := decode[bashRes](t, s.call(t, "tools/bash", map[string]any{"command": `echo "${BASH_VERSION:-no bash}"; readlink /proc/$$/exe`}))
	require.Equal(t, "no bash\n/bin/busybox\n", r.Stdout)
	r = decode[bashRes](t, s.call(t, "tools/bash", map[string]any{"command": "seq 100000"}))
	require.Contains(t, r.Stdout, "[truncated: kept the first 4000 of 100000 lines")
	require.NotNil(t, r.StdoutInfo.Spill)

	rc := startRemoteCall(t, bin, quietHostDeathCommand, opts...)
	rc.s.notify(t, "$/cancelRequest", map[string]any{"id": rc.id})
	f := rc.s.waitTimeout(rc.id, replyWait)
	require.NotNil(t, f)
	require.NotNil(t, f.Error)
	require.Equal(t, "CANCELLED", f.Error.Kind)
	require.Empty(t, marked(rc.mark), "a process of the cancelled call is alive when the reply arrives")
}

// podmanOut runs podman and returns its output, whatever its status.
func podmanOut(t testing.TB, args ...string) string {
	out, _ := exec.Command("podman", append(append([]string{}, podmanGlobal...), args...)...).CombinedOutput()
	return string(out)
}

// TestContainer_GoClient drives a server in the container with package
// client, sending this process's pid as processId as every LSP host does:
// read, bash, then Close. Before the ancestor rule the server exited at
// once (no such pid in its namespace) and the first call failed.
//
// Checks SPEC §1 (processId), §12 Remote.
func TestContainer_GoClient(t *testing.T) {
	c := startContainer(t, bookwormImage, "")
	root := containerDir(t, c)
	require.NoError(t, os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the host\n"), 0o644))
	cmd := exec.Command(c.writeWrapper(t, podmanWrapper{}))
	cmd.Dir = root
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	conn, err := client.Start(cmd, client.Options{})
	require.NoError(t, err)
	t.Cleanup(conn.Kill)
	ctx := context.Background()
	_, err = conn.Initialize(ctx, &protocol.InitializeParams{
		ProcessID:             int32(os.Getpid()),
		RootURI:               protocol.DocumentURI(uri.File(root)),
		InitializationOptions: map[string]any{"dataDir": containerDir(t, c)},
	})
	require.NoError(t, err)
	var read struct {
		Content string `json:"content"`
	}
	require.NoError(t, conn.Call(ctx, "tools/read", map[string]any{"path": "hello.txt"}, &read))
	require.Contains(t, read.Content, "hello from the host")
	var bash bashRes
	require.NoError(t, conn.Call(ctx, "tools/bash", map[string]any{"command": "cat /proc/1/cmdline | tr '\\0' ' '"}, &bash))
	require.Equal(t, "sleep infinity ", bash.Stdout, "the command runs in the container")
	require.NoError(t, conn.Close())
	require.Contains(t, stderr.String(), notAncestorLine(os.Getpid()))
}

// TestContainer_ProcessEvents drives the process tools of a server in the
// container through `podman exec -i`: the input event on a pty (with its
// prompt) and on a pipe, echo off on the terminal, and the port event of a
// socket that listens, all read from the container's /proc by the server
// inside it.
//
// Checks SPEC §13.1, §12 Remote.
func TestContainer_ProcessEvents(t *testing.T) {
	c := startContainer(t, bookwormImage, "")
	root := containerDir(t, c)
	cmd := exec.Command(c.writeWrapper(t, podmanWrapper{}))
	cmd.Dir = root
	conn, err := client.Start(cmd, client.Options{})
	require.NoError(t, err)
	t.Cleanup(conn.Kill)
	ctx := context.Background()
	_, err = conn.Initialize(ctx, &protocol.InitializeParams{RootURI: protocol.DocumentURI(uri.File(root)),
		InitializationOptions: map[string]any{"dataDir": containerDir(t, c)}})
	require.NoError(t, err)
	long := int64(20000)
	for _, tc := range []struct {
		name, command, mode, reason, prompt string
		echo                                bool
	}{
		{"pty prompt", "read -p 'Name? ' n", "pty", "input", "Name? ", true},
		{"pipe read", "read n", "pipe", "input", "", true},
		{"pty echo off", "stty -echo; read -p 'Passphrase: ' n", "pty", "input", "Passphrase: ", false},
		{"listening socket", `perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(Listen => 5, LocalAddr => "127.0.0.1:0") or die $!; sleep 60'`,
			"pipe", "port", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := conn.ProcessStart(ctx, client.ProcessStartParams{Command: &tc.command, Mode: &tc.mode,
				Wait: &client.ProcessWait{Until: []string{tc.reason, "exit"}, TimeoutMs: &long}})
			require.NoError(t, err)
			require.Equal(t, tc.reason, r.Reason, "%+v", r)
			if tc.reason == "port" {
				require.NotEmpty(t, r.Ports)
				return
			}
			require.Equal(t, "awaitingInput", r.State)
			require.NotNil(t, r.Prompt)
			require.Equal(t, tc.prompt, r.Prompt.Text)
			require.Equal(t, tc.echo, r.Prompt.Echo)
		})
	}
	require.NoError(t, conn.Close())
}

// TestContainer_TypeScriptClient runs the TypeScript client's Electron-style
// example (examples/electron-main.js: ToolRPC.spawn, which sends
// process.pid as processId, grep, bash with forwarded chunks, cancel,
// close) against a server in the container — the failing case:
// the server exited at once, "host process N is gone".
//
// Checks SPEC §1 (processId), §6.4, §6.6, §12 Remote.
func TestContainer_TypeScriptClient(t *testing.T) {
	lockDir(t, tsClientDir)
	npmCI(t, tsClientDir)
	build := exec.Command("npm", "run", "build")
	build.Dir = tsClientDir
	out, err := build.CombinedOutput()
	require.NoError(t, err, "npm run build:\n%s", out)
	c := startContainer(t, bookwormImage, "")
	ws := containerDir(t, c)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "src", "app.js"), []byte("const a = 1;\n// TODO: ship it\n"), 0o644))
	run := exec.Command("node", filepath.Join("examples", "electron-main.js"), ws)
	run.Dir = tsClientDir
	run.Env = append(os.Environ(), "TOOLRPC_BIN="+c.writeWrapper(t, podmanWrapper{}))
	var stderr bytes.Buffer
	run.Stderr = &stderr
	out, err = run.Output()
	require.NoError(t, err, "electron-main.js:\n%s%s", out, stderr.String())
	var got struct {
		GrepCount int    `json:"grepCount"`
		OK        string `json:"ok"`
		Cancelled struct {
			Kind   string `json:"kind"`
			Stdout string `json:"stdout"`
		} `json:"cancelled"`
		Closed struct {
			Code int `json:"code"`
		} `json:"closed"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Equal(t, 1, got.GrepCount)
	require.Equal(t, "one\n", got.OK)
	require.Equal(t, "CANCELLED", got.Cancelled.Kind)
	require.Equal(t, "waiting\n", got.Cancelled.Stdout)
	require.Equal(t, 0, got.Closed.Code, "the server exited 0 after shutdown")
}

// TestContainer_HostServerSparesContainerCalls: a server started on this
// machine sweeps, at start-up, the commands of servers that died (their
// cookie names a pid that no longer runs). A call in a container names its
// server by a pid of the container's namespace, which here names nothing or
// a stranger: before the fix the host's server killed it.
//
// Checks SPEC §6.6, §7, §12 Remote.
func TestContainer_HostServerSparesContainerCalls(t *testing.T) {
	here := bin
	c := startContainer(t, bookwormImage, "")
	rc := startRemoteCall(t, c.writeWrapper(t, podmanWrapper{}), quietHostDeathCommand, inContainerOpts(t, c)...)
	useBin(t, here) // the next servers run on this machine
	for i := 0; i < 3; i++ {
		local := start(t)
		// The start-up sweep runs beside the first calls; a call that
		// outlasts it gives it time to finish (not a speed check).
		local.call(t, "tools/bash", map[string]any{"command": "sleep 0.3"})
	}
	require.GreaterOrEqual(t, len(marked(rc.mark)), 3, "a server on the host killed the container's call: %v", marked(rc.mark))
	rc.s.notify(t, "$/cancelRequest", map[string]any{"id": rc.id})
	f := rc.s.waitTimeout(rc.id, replyWait)
	require.NotNil(t, f)
	require.Equal(t, "CANCELLED", f.Error.Kind, "the call was still running, and is cancelled by its own server")
}

// inContainerOpts are inContainer's options without its wrapper (the
// caller passes its own).
func inContainerOpts(t *testing.T, c *container) []option {
	t.Setenv(pidnsEnv, c.PIDNS)
	return []option{withRoot(containerDir(t, c)), withDataDir(containerDir(t, c))}
}
