package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The Windows build under Wine (issue 34; docs/platforms.md). Debian 12's
// Wine 8.0 runs the windows/amd64 build once a stub bcryptprimitives.dll
// (testdata/wine) sits in the prefix's system32. setupWine builds the stub
// with mingw, makes a fresh prefix, starts one persistent wineserver for the
// run, cross-builds the server and the PE helper (testdata/winehelper, which
// is also the bash.exe that TOOLRPC_BASH names: no PE bash exists here) and
// writes a wrapper named toolrpc that runs the .exe under Wine.

// wineExeEnv names a windows/amd64 server to test instead of the one
// setupWine builds from cmd/toolrpc (a release build, or a changed one to see
// a test fail).
const wineExeEnv = "TOOLRPC_WINE_EXE"

// wineTools are what the Windows mode needs on this machine.
var wineTools = []string{"wine", "wineboot", "wineserver", "x86_64-w64-mingw32-gcc"}

// wineSetup is a prepared Wine prefix and the binaries built for it.
type wineSetup struct {
	dir     string   // everything below it is removed after the run
	env     []string // WINEPREFIX, WINEDEBUG, WINEDLLOVERRIDES
	exe     string   // the server, windows/amd64
	helper  string   // winehelper.exe (Unix path)
	wrapper string   // runs exe under Wine with the arguments it is given
}

var wine struct {
	once sync.Once
	w    *wineSetup
	err  error
}

// setupWine prepares Wine once per test binary; stopWine (TestMain) ends
// its wineserver and removes its files.
func setupWine(t testing.TB) *wineSetup {
	t.Helper()
	for _, tool := range wineTools {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "%s is missing: apt-get install --no-install-recommends wine wine64 gcc-mingw-w64-x86-64 (.ci/run does)", tool)
	}
	wine.once.Do(func() { wine.w, wine.err = newWineSetup() })
	require.NoError(t, wine.err)
	return wine.w
}

func newWineSetup() (*wineSetup, error) {
	dir, err := os.MkdirTemp("", "toolrpc-wine-")
	if err != nil {
		return nil, err
	}
	w := &wineSetup{dir: dir, exe: filepath.Join(dir, "toolrpc.exe"), helper: filepath.Join(dir, "bin", "winehelper.exe"),
		wrapper: filepath.Join(dir, serverName)}
	prefix := filepath.Join(dir, "prefix")
	w.env = []string{"WINEPREFIX=" + prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml="}
	run := func(env []string, name string, args ...string) error {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(string(out), 4000))
		}
		return nil
	}
	src, err := filepath.Abs(filepath.Join("testdata", "wine"))
	if err != nil {
		return nil, err
	}
	dll := filepath.Join(dir, "bcryptprimitives.dll")
	cross := []string{"GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0"}
	steps := []func() error{
		func() error {
			return run(nil, "x86_64-w64-mingw32-gcc", "-O2", "-shared", "-s", "-o", dll,
				filepath.Join(src, "bcryptprimitives.c"), filepath.Join(src, "bcryptprimitives.def"), "-ladvapi32")
		},
		// wineboot's warning about syswow64's rundll32 (no 32-bit Wine) is harmless.
		func() error { _ = run(w.env, "wineboot", "--init"); return run(w.env, "wineserver", "-w") },
		// system32, not beside the .exe: Go loads it with LOAD_LIBRARY_SEARCH_SYSTEM32.
		func() error {
			return copyFile(dll, filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll"))
		},
		func() error {
			// One wineserver for the run: a cold start costs ~0.7 s. It
			// forks into the background: no pipe of ours may stay with it.
			cmd := exec.Command("wineserver", "-p")
			cmd.Env = append(os.Environ(), w.env...)
			return cmd.Run()
		},
		func() error {
			if exe := os.Getenv(wineExeEnv); exe != "" {
				return copyFile(exe, w.exe)
			}
			return run(cross, "go", "build", "-o", w.exe, "github.com/toolrpc/toolrpc/cmd/toolrpc")
		},
		func() error { return run(cross, "go", "build", "-o", w.helper, "./testdata/winehelper") },
		func() error {
			// The first process of a prefix starts Wine's services
			// (services.exe, winedevice.exe, …), which inherit its stdio and
			// live as long as the wineserver: started here with no pipe of
			// ours, so they hold no server's stderr open.
			cmd := exec.Command("wine", w.helper, "echo", "ok")
			cmd.Env = append(os.Environ(), w.env...)
			return cmd.Run()
		},
		func() error {
			script := "#!/bin/sh\n# The Windows build under Wine, as if it were a native toolrpc (conformance/wine_test.go).\n"
			for _, e := range w.env {
				script += "export " + shellQuote(e) + "\n"
			}
			script += "export TOOLRPC_BASH=\"${TOOLRPC_BASH:-" + winePath(w.helper) + "}\"\n"
			script += "exec wine " + shellQuote(w.exe) + " \"$@\"\n"
			return os.WriteFile(w.wrapper, []byte(script), 0o755)
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			stopWineSetup(w)
			return nil, err
		}
	}
	return w, nil
}

// stopWine ends the run's wineserver and removes its prefix and binaries.
func stopWine() {
	if wine.w != nil {
		stopWineSetup(wine.w)
	}
}

func stopWineSetup(w *wineSetup) {
	for _, arg := range []string{"-k", "-w"} { // kill, then wait: it saves the registry into the prefix as it ends
		cmd := exec.Command("wineserver", arg)
		cmd.Env = append(os.Environ(), w.env...)
		_ = cmd.Run()
	}
	_ = os.RemoveAll(w.dir)
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// useWine makes start() spawn the Windows build under Wine, with paths
// mapped, for the rest of the test; env is added to the wrapper's.
func useWine(t testing.TB) *wineSetup {
	w := setupWine(t)
	useBin(t, w.wrapper)
	saved := winePaths
	winePaths = true
	t.Cleanup(func() { winePaths = saved })
	return w
}

// wineTree is a process tree of the PE helper for one test: the helper
// copied into a directory named by a mark (so Wine's process list tells
// this test's processes from others), its pid files in pidDir.
type wineTree struct {
	w      *wineSetup
	mark   string
	bash   string // the copy, which TOOLRPC_BASH names (Unix path)
	pidDir string
}

// treeProcs is the size of the tree `tree DIR 2 2` starts: the shell, two
// children, four grandchildren (one child and two grandchildren detached).
const treeProcs = 7

func newWineTree(t *testing.T, w *wineSetup) *wineTree {
	mark := fmt.Sprintf("wt%d", time.Now().UnixNano())
	dir := filepath.Join(t.TempDir(), mark)
	tr := &wineTree{w: w, mark: mark, bash: filepath.Join(dir, "bash.exe"), pidDir: filepath.Join(dir, "pids")}
	require.NoError(t, os.MkdirAll(tr.pidDir, 0o755))
	require.NoError(t, copyFile(w.helper, tr.bash))
	return tr
}

// command is the tools/bash command that grows the tree.
func (tr *wineTree) command() string { return "tree " + winePath(tr.pidDir) + " 2 2" }

// started is how many processes of the tree have written their pid file.
func (tr *wineTree) started() int {
	ents, _ := os.ReadDir(tr.pidDir)
	return len(ents)
}

// alive counts the tree's processes in Wine's process list (Toolhelp32,
// asked through the helper in the run's prefix).
func (tr *wineTree) alive(t *testing.T) int {
	n, err := tr.count()
	require.NoError(t, err)
	return n
}

func (tr *wineTree) count() (int, error) {
	cmd := exec.Command("wine", tr.w.helper, "count", tr.mark)
	cmd.Env = append(os.Environ(), tr.w.env...)
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("wine winehelper count: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("wine winehelper count: %q: %w", out, err)
	}
	return n, nil
}

// requireNoSurvivors waits (a backstop, not a timing) for Wine's process
// list to hold none of the tree's processes.
func (tr *wineTree) requireNoSurvivors(t *testing.T) {
	require.Equal(t, treeProcs, tr.started(), "the whole tree was started")
	var n int
	var err error
	require.Eventually(t, func() bool { n, err = tr.count(); return err == nil && n == 0 }, time.Minute, 200*time.Millisecond,
		"processes of the tree left in Wine's process list")
	require.NoError(t, err)
}

// TestWine_TreeKill checks SPEC §6.5, §6.6 and §1 on Windows (issue 34):
// tools/bash runs the command's tree in a Job Object, so a timeout, a
// $/cancelRequest and the server's death by SIGKILL each leave no process
// of it in Wine's process list, detached children included. The shell is
// the PE helper (TOOLRPC_BASH), which grows a tree of seven processes.
func TestWine_TreeKill(t *testing.T) {
	w := useWine(t)
	t.Run("timeout", func(t *testing.T) {
		tr := newWineTree(t, w)
		s := start(t, withEnv("TOOLRPC_BASH="+winePath(tr.bash)))
		// A timeout long enough for Wine to start seven processes on a
		// loaded machine; the reply comes when it passes.
		e := s.callErr(t, "tools/bash", map[string]any{"command": tr.command(), "timeout": 20})
		require.Equal(t, "TIMEOUT", e.Kind, e.Message)
		tr.requireNoSurvivors(t)
	})
	t.Run("cancel", func(t *testing.T) {
		tr := newWineTree(t, w)
		s := start(t, withEnv("TOOLRPC_BASH="+winePath(tr.bash)))
		id := s.send(t, "tools/bash", map[string]any{"command": tr.command(), "timeout": 600})
		require.Eventually(t, func() bool { return tr.started() == treeProcs }, time.Minute, 50*time.Millisecond)
		require.Equal(t, treeProcs, tr.alive(t), "Wine lists the whole tree")
		s.notify(t, "$/cancelRequest", map[string]any{"id": id})
		reply := s.wait(t, id)
		require.NotNil(t, reply.Error)
		require.Equal(t, "CANCELLED", reply.Error.Kind)
		require.Equal(t, 0, tr.alive(t), "no process of the call survives the reply")
	})
	t.Run("server SIGKILL", func(t *testing.T) {
		tr := newWineTree(t, w)
		s := start(t, withEnv("TOOLRPC_BASH="+winePath(tr.bash)))
		s.send(t, "tools/bash", map[string]any{"command": tr.command(), "timeout": 600})
		require.Eventually(t, func() bool { return tr.started() == treeProcs }, time.Minute, 50*time.Millisecond)
		require.Equal(t, treeProcs, tr.alive(t), "Wine lists the whole tree")
		require.NoError(t, s.cmd.Process.Kill()) // the wine process that is the server
		s.waitExit(t)
		tr.requireNoSurvivors(t)
	})
}

// TestWine_Processes checks SPEC §13 on Windows in pipe mode (issue 34):
// the PE helper as the shell, its tree in a Job Object; exit with its code,
// idle, pattern, the log and cursors, input by §13.1's fallback (output
// rested after a line without a newline: promptConfidence "low") answered
// with write; KILL leaves no process in Wine's process list; TERM is
// refused (no process-group signals), and so is pty mode, naming pipe mode.
func TestWine_Processes(t *testing.T) {
	w := useWine(t)
	tr := newWineTree(t, w)
	s := start(t, withEnv("TOOLRPC_BASH="+winePath(tr.bash)))
	type reply struct {
		procReply
		PromptConfidence string `json:"promptConfidence"`
	}
	call := func(tool string, args map[string]any) reply {
		t.Helper()
		return decode[reply](t, s.call(t, "tools/process/"+tool, args))
	}

	r := call("start", map[string]any{"command": "echo bye; exit 3", "wait": wait(longWait, "exit")})
	require.Equal(t, "exit", r.Reason)
	require.Equal(t, "exited", r.State)
	require.Equal(t, 3, *r.ExitCode)
	require.Equal(t, "bye\n", r.Output)
	require.Equal(t, "pipe", r.Mode)

	r = call("start", map[string]any{"command": "lines 5; sleep 60",
		"wait": map[string]any{"until": []string{"pattern"}, "pattern": "^3$", "timeoutMs": longWait}})
	require.Equal(t, "pattern", r.Reason)
	require.Equal(t, "3", r.Matched)
	r = call("read", map[string]any{"id": r.ID, "since": 0, "wait": map[string]any{"until": []string{"idle"}, "idleMs": 300, "timeoutMs": longWait}})
	require.Equal(t, "idle", r.Reason)
	require.Equal(t, "1\n2\n3\n4\n5\n", r.Output)
	require.Equal(t, int64(0), r.Cursor.From)
	require.Equal(t, int64(10), r.Cursor.To)
	log, err := os.ReadFile(r.Log)
	require.NoError(t, err, "the log, at %s", r.Log)
	require.Equal(t, "1\n2\n3\n4\n5\n", string(log))
	again := call("read", map[string]any{"id": r.ID, "since": 4, "wait": wait(0)})
	require.Equal(t, "3\n4\n5\n", again.Output, "reads never consume")
	k := call("signal", map[string]any{"id": r.ID, "signal": "KILL", "wait": wait(longWait, "exit")})
	require.Equal(t, "exited", k.State)

	r = call("start", map[string]any{"command": "prompt Name?", "wait": wait(longWait, "input", "exit")})
	require.Equal(t, "input", r.Reason)
	require.Equal(t, "awaitingInput", r.State)
	require.NotNil(t, r.Prompt)
	require.Equal(t, "Name?", r.Prompt.Text)
	require.Equal(t, "low", r.PromptConfidence, "input is guessed on Windows (SPEC §13.1 fallback)")
	r = call("write", map[string]any{"id": r.ID, "data": "bob\n", "wait": wait(longWait, "exit")})
	require.Equal(t, "exit", r.Reason)
	require.Equal(t, 0, *r.ExitCode)
	require.Equal(t, "got bob\n", r.Output)

	r = call("start", map[string]any{"command": tr.command(), "wait": wait(0)})
	require.Eventually(t, func() bool { return tr.started() == treeProcs }, time.Minute, 50*time.Millisecond)
	require.Equal(t, treeProcs, tr.alive(t), "Wine lists the whole tree")
	k = call("signal", map[string]any{"id": r.ID, "signal": "KILL", "wait": wait(longWait, "exit")})
	require.Equal(t, "exited", k.State)
	require.Equal(t, 0, tr.alive(t), "KILL leaves no process of the tree")

	r = call("start", map[string]any{"command": "sleep 60", "wait": wait(0)})
	e := s.callErr(t, "tools/process/signal", map[string]any{"id": r.ID, "signal": "TERM"})
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	require.Contains(t, e.Message, "only KILL")

	e = s.callErr(t, "tools/process/start", map[string]any{"command": "echo x", "mode": "pty"})
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	require.Contains(t, e.Message, `use mode "pipe"`)
}

// wineExclusion is a test the Windows mode leaves out, and why.
type wineExclusion struct{ pattern, reason string }

// Reasons the Windows mode leaves a test out: what the test needs that the
// Windows build or Wine 8 does not have (docs/platforms.md), never a failure
// of the server's own.
const (
	whyRecursion  = "starts its own Wine, sshd or containers"
	whyBash       = "runs bash syntax or coreutils (pipes, redirection, &, trap, seq, printf, python3); no PE bash exists here and the PE stand-in runs plain words"
	whyProc       = "reads /proc (survivors by TESTMARK, VmHWM, process trees, /proc files)"
	whyHostDeath  = "needs processId death, which does not hold on Windows yet"
	whyProcesses  = "SPEC §13 tests run bash, pty mode and the /proc probe; Windows runs pipe mode only (TestWine_Processes)"
	whyIndex      = "needs the content index or the file table, which the Windows build does not keep"
	whyModes      = "needs Unix permission bits (chmod 000, mode 0600, setpriv); Wine maps no Unix mode to an ACL"
	whyUnixPath   = "uses a Unix path outside the temporary directory (/dev, /etc), which is no absolute path on Windows"
	whyDevices    = "reads FIFOs and the devices of /dev, which Windows has not"
	whySymlink    = "walks a Unix symlink to a directory, which Wine 8 shows as the directory itself (no reparse point)"
	whySignal     = "signals the server's process (SIGTERM) or bounds its stdout writes; Windows has neither"
	whyNodeClient = "drives the server from a Node or npm client whose checks run bash commands"
	whyBudget     = "creates and globs 200,000 files: minutes under Wine's directory listing, past the Windows mode's 6-minute CI budget"
	whySandbox    = "checks SPEC §14 with bash commands, setpriv and a Unix home; Windows has no sandbox (auto is off, docs/sandbox.md), which TestPlatforms checks"
	whyEditor     = "SPEC §15 tests send the host's Unix file: URIs and drive a Linux Neovim and Emacs; mapping them for a Windows server is not built"
)

var wineExclusions = []wineExclusion{
	{"TestWine_", whyRecursion}, {"TestRemote_", whyRecursion}, {"TestContainer_", whyRecursion},
	{"TestBash_", whyBash}, {"TestCriterion01_", whyBash}, {"TestCriterion02_", whyBash}, {"TestCriterion09_BashValidUTF8$", whyBash},
	{"TestCriterion10_", whyBash}, {"TestCriterion11_", whyBash}, {"TestCriterion12_", whyBash},
	{"TestMCP_EveryTool$", whyBash}, {"TestMCP_CancelKillsWholeTree$", whyBash}, {"TestMCP_StdinEOFKillsTreesAndExits$", whyBash},
	{"TestLoad_MixedConcurrentCalls$", whyBash},
	{"TestCriterion13_", whyProc}, {"TestSurvivors_", whyProc}, {"TestLoad_OutputHeavyMemory$", whyProc}, {"TestUnsizedFiles$", whyProc},
	{"TestHostDeath_", whyHostDeath},
	{"TestProcess_", whyProcesses},
	{"TestContentIndex", whyIndex}, {"TestEncoding_ContentIndexEqualsScan$", whyIndex}, {"TestWorkDoneProgress", whyIndex},
	{"TestMCPBuildLog$", whyIndex}, {"TestNodeWorkDoneProgress$", whyIndex},
	{"TestEdit_CRLFRoundTrip$", whyModes}, {"TestGlobLimitAndErrors$", whyModes}, {"TestMCP_ErrorShapes$", whyModes},
	{"TestHostile_UnreadableFiles$", whyModes},
	{"TestHostile_InputsThenGoodRequest$", whyUnixPath},
	{"TestHostile_GlobHugeTreeCapped$", whyBudget},
	{"TestGrepIgnoreRules$", whySymlink}, // TestRootRules runs, less its symlink cases
	{"TestReadRefusesNonRegularFiles$", whyDevices},
	{"TestMCP_SIGTERMIsNotAnError$", whySignal}, {"TestEnding_HostStopsReading$", whySignal},
	{"TestNodeHost$", whyNodeClient}, {"TestTypeScriptClient$", whyNodeClient}, {"TestMCPNodeClient$", whyNodeClient},
	{"TestNPM_", whyNodeClient},
	{"TestOutput_NoHTMLEscapes$", whyBash}, {"TestFirstGrepAnswersBeforeTheIndexBuild$", whyIndex},
	{"TestSandbox_", whySandbox}, {"TestEscape_", whySandbox},
	{"TestEditor", whyEditor},
	{"TestCancel_IdSpelledWithEscapes$", whyBash}, {"TestMCP_EOFHostStopsReading$", whySignal},
	{"TestSession_", whyBash}, {"TestAnthropicBash", whyBash}, {"TestCodexExec", whyBash}, {"TestDialectShells", whyBash},
	{"TestGemini", whyBash}, {"TestDialectEditor", whyEditor}, {"TestPrewarm", whyIndex},
}

// TestWine_Suite re-runs this test binary — the suite — against the
// windows/amd64 build under Wine 8, with paths mapped (winepath_test.go) and
// the PE helper as bash.exe, and requires every test it lists to pass
// except wineExclusions, each left out for its reason. Under Wine, exit
// ends the server only once stdin closes (Wine's CancelIoEx does not
// interrupt a blocked pipe read; real Windows does, golang/go#28477): the
// harness closes stdin after exit (writeRaw).
//
// Checks SPEC §1, §3, §4, §5, §8, §9, §10, §12 on Windows.
func TestWine_Suite(t *testing.T) {
	// The re-runs are the suite's longest tests and mostly wait (on
	// servers, sshd, podman, Wine), so they run beside each other, after
	// the other tests; lockDir makes their npm builds take turns.
	t.Parallel()
	w := setupWine(t)
	var names []string
	byReason := map[string][]string{}
	for _, x := range wineExclusions {
		names = append(names, x.pattern)
		byReason[x.reason] = append(byReason[x.reason], strings.TrimSuffix(x.pattern, "$"))
	}
	for reason, tests := range byReason {
		t.Logf("left out (%s): %s", reason, strings.Join(tests, " "))
	}
	runSuiteThrough(t, "wine", w.wrapper, names, w.env...)
}

// skipOnWine skips t in the Windows mode, for why: a subtest of a test the
// mode runs, which needs what the mode does not have.
func skipOnWine(t *testing.T, why string) {
	if winePaths {
		t.Skip("Windows mode: " + why)
	}
}

// TestWine_WindowsUnitTests cross-builds the Windows-only unit tests of the
// packages that have them and runs them under Wine: procgroup's bash lookup
// (each install place named once in the bash-missing message).
//
// Checks SPEC §6 on Windows.
func TestWine_WindowsUnitTests(t *testing.T) {
	w := setupWine(t)
	exe := filepath.Join(t.TempDir(), "procgroup.test.exe")
	build := exec.Command("go", "test", "-c", "-o", exe, "github.com/toolrpc/toolrpc/procgroup")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	run := exec.Command("wine", exe, "-test.run", "^TestFindBashNamesEachPlaceOnce$", "-test.v")
	run.Env = append(os.Environ(), w.env...)
	out, err = run.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: TestFindBashNamesEachPlaceOnce", "%s", out)
}
