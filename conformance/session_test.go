//go:build linux

package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The wording SPEC §6.7 fixes (wire.SessionLost, wire.SessionFresh).
const (
	sessionLost  = "state was lost: the next command in this session starts a new shell"
	sessionFresh = "this command ran in a new shell"
)

// sessionInfo mirrors BashSession of SPEC §6.7.
type sessionInfo struct {
	Name            string `json:"name"`
	Started         bool   `json:"started"`
	Ended           bool   `json:"ended"`
	Notice          string `json:"notice"`
	BackgroundBytes int64  `json:"backgroundBytes"`
}

// sessionRes is a BashResult with its session member.
type sessionRes struct {
	bashRes
	Session *sessionInfo `json:"session"`
}

// inSession runs command in session name and returns the result.
func inSession(t *testing.T, s *server, name, command string, extra ...map[string]any) sessionRes {
	t.Helper()
	p := map[string]any{"command": command, "session": name}
	for _, e := range extra {
		for k, v := range e {
			p[k] = v
		}
	}
	return decode[sessionRes](t, s.call(t, "tools/bash", p))
}

// TestSession_StatePersists checks SPEC §6.7: cd, export, a function, an
// alias, set -o pipefail and a sourced venv carry from one command to the next.
func TestSession_StatePersists(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
	s := start(t, withRoot(root))
	cases := []struct{ name, set, probe, want string }{
		{"cd", "cd sub", "pwd", filepath.Join(root, "sub") + "\n"},
		{"export", "export FOO=bar", "sh -c 'echo $FOO'", "bar\n"},
		{"function", "greet() { echo hello $1; }", "greet you", "hello you\n"},
		{"alias", "alias ll='echo aliased'", "ll", "aliased\n"},
		{"pipefail", "set -o pipefail", "false | true; echo $?", "1\n"},
		{"umask", "umask 027", "umask", "0027\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "persist-" + tc.name
			first := inSession(t, s, name, tc.set)
			require.Equal(t, 0, *first.ExitCode, first.Stderr)
			require.True(t, first.Session.Started)
			got := inSession(t, s, name, tc.probe)
			require.Equal(t, tc.want, got.Stdout)
			require.False(t, got.Session.Started, "the same shell")
		})
	}
	t.Run("venv", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("no python3")
		}
		venv := filepath.Join(root, ".venv")
		if out, err := exec.Command("python3", "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
			t.Skipf("python3 -m venv: %v %s", err, out)
		}
		res := inSession(t, s, "venv", "source .venv/bin/activate")
		require.Equal(t, 0, *res.ExitCode, res.Stderr)
		res = inSession(t, s, "venv", "python -c 'import sys; print(sys.prefix)'")
		require.Equal(t, venv+"\n", res.Stdout)
		require.Empty(t, res.Stderr, "no prompt or PS1 leaks into a result")
	})
	t.Run("without session nothing persists", func(t *testing.T) {
		callBash(t, s, map[string]any{"command": "export FOO=bar"})
		require.Equal(t, "\n", callBash(t, s, map[string]any{"command": "echo $FOO"}).Stdout)
	})
}

// TestSession_StdinNeverEatsNextCommand checks SPEC §6.7: read and cat get
// /dev/null or the call's stdin, never the channel of the next command.
func TestSession_StdinNeverEatsNextCommand(t *testing.T) {
	s := start(t)
	res := inSession(t, s, "in", "read x; echo \"x=$x\"; cat; echo cat-done")
	require.Equal(t, "x=\ncat-done\n", res.Stdout)
	require.Equal(t, "next\n", inSession(t, s, "in", "echo next").Stdout)
	res = inSession(t, s, "in", "cat", map[string]any{"stdin": "given\nlines\n"})
	require.Equal(t, "given\nlines\n", res.Stdout)
	require.Equal(t, "after\n", inSession(t, s, "in", "echo after").Stdout)
}

// TestSession_ExitEndsSession checks SPEC §6.7: exit 3 ends the session with
// its code and the notice; the next command starts a new shell in the
// session's first directory.
func TestSession_ExitEndsSession(t *testing.T) {
	root := t.TempDir()
	s := start(t, withRoot(root))
	inSession(t, s, "ex", "cd /; export GONE=1")
	res := inSession(t, s, "ex", "echo bye; exit 3")
	require.Equal(t, 3, *res.ExitCode)
	require.Equal(t, "bye\n", res.Stdout)
	require.True(t, res.Session.Ended)
	require.Equal(t, "the shell exited with code 3: "+sessionLost, res.Session.Notice)
	next := inSession(t, s, "ex", "pwd; echo \"[$GONE]\"")
	require.Equal(t, root+"\n[]\n", next.Stdout)
	require.True(t, next.Session.Started)
	require.Contains(t, next.Session.Notice, sessionFresh)
}

// TestSession_TimeoutKillsTreeShellSurvives checks SPEC §6.7 and §6.5: a
// timeout kills the command's tree, a setsid grandchild too, and the shell
// with its cd survives.
func TestSession_TimeoutKillsTreeShellSurvives(t *testing.T) {
	s := start(t)
	inSession(t, s, "to", "cd /tmp")
	mark := newMark(t)
	e := s.callErr(t, "tools/bash", map[string]any{
		"command": "echo partial; setsid sleep 1000 & (sleep 1000 &); sleep 1000", "session": "to",
		"timeout": 1, "env": map[string]string{"TESTMARK": mark},
	})
	require.Equal(t, "TIMEOUT", e.Kind)
	data := decode[sessionRes](t, e.Data)
	require.Equal(t, "partial\n", data.Stdout)
	require.Equal(t, "SIGKILL", data.Signal)
	require.False(t, data.Session.Ended)
	require.Empty(t, markHolders(mark), "0 survivors in /proc")
	res := inSession(t, s, "to", "pwd")
	require.Equal(t, "/tmp\n", res.Stdout)
	require.False(t, res.Session.Started)
	t.Run("a builtin loop", func(t *testing.T) {
		e := s.callErr(t, "tools/bash", map[string]any{"command": "while :; do :; done", "session": "to", "timeout": 1})
		require.Equal(t, "TIMEOUT", e.Kind)
		require.Equal(t, "/tmp\n", inSession(t, s, "to", "pwd").Stdout)
	})
}

// TestSession_CancelKillsTreeShellSurvives checks SPEC §6.7 and §6.6.
func TestSession_CancelKillsTreeShellSurvives(t *testing.T) {
	s := start(t)
	inSession(t, s, "ca", "cd /tmp")
	mark := newMark(t)
	id := s.send(t, "tools/bash", map[string]any{
		"command": "setsid sleep 1000 & (sleep 1000 &); sleep 1000", "session": "ca",
		"env": map[string]string{"TESTMARK": mark},
	})
	require.Eventually(t, func() bool { return len(markHolders(mark)) >= 3 }, time.Minute, 5*time.Millisecond)
	s.notify(t, "$/cancelRequest", map[string]any{"id": id})
	reply := s.wait(t, id)
	require.NotNil(t, reply.Error)
	require.Equal(t, "CANCELLED", reply.Error.Kind)
	require.Empty(t, markHolders(mark), "0 survivors in /proc")
	require.Equal(t, "/tmp\n", inSession(t, s, "ca", "pwd").Stdout)
}

// TestSession_BigOutputCutAsWithout checks SPEC §6.7 with §6.1–§6.3: 20 MB
// of output is cut, counted and spilled exactly as without a session.
func TestSession_BigOutputCutAsWithout(t *testing.T) {
	s := start(t)
	cmd := "head -c 20000000 /dev/zero | tr '\\0' 'x' | fold -w 99; seq 1 300000 >&2"
	plain := callBash(t, s, map[string]any{"command": cmd})
	sess := inSession(t, s, "big", cmd)
	for _, r := range []*bashRes{&plain, &sess.bashRes} {
		for _, si := range []*bashInfo{&r.StdoutInfo, &r.StderrInfo} {
			require.NotNil(t, si.Spill)
			b, err := os.ReadFile(*si.Spill)
			require.NoError(t, err)
			si.Spill = nil
			si.Chunks = len(b) // compare the spills' sizes instead of paths
		}
		r.Stdout = spillPath.ReplaceAllString(r.Stdout, "SPILL")
		r.Stderr = spillPath.ReplaceAllString(r.Stderr, "SPILL")
		r.DurationMs = nil
	}
	require.Equal(t, plain, sess.bashRes)
}

// TestSession_ExecRedirectionsLastOneCommand checks SPEC §6.7: exec >/dev/null
// and exec 2>&- last until the command's end; the next output is captured.
func TestSession_ExecRedirectionsLastOneCommand(t *testing.T) {
	s := start(t)
	res := inSession(t, s, "ex", "exec >/dev/null; echo hidden")
	require.Equal(t, "", res.Stdout)
	require.Equal(t, "seen\n", inSession(t, s, "ex", "echo seen").Stdout)
	inSession(t, s, "ex", "exec 2>&-; echo gone >&2")
	require.Equal(t, "err\n", inSession(t, s, "ex", "echo err >&2").Stderr)
	res = inSession(t, s, "ex", "printf 'no newline'")
	require.Equal(t, "no newline", res.Stdout)
	require.Equal(t, "x\n", inSession(t, s, "ex", "echo x").Stdout)
}

// TestSession_Independent checks SPEC §6.7: two sessions share nothing.
func TestSession_Independent(t *testing.T) {
	s := start(t)
	inSession(t, s, "a", "cd /tmp; X=a")
	inSession(t, s, "b", "cd /; X=b")
	require.Equal(t, "/tmp a\n", inSession(t, s, "a", "echo $PWD $X").Stdout)
	require.Equal(t, "/ b\n", inSession(t, s, "b", "echo $PWD $X").Stdout)
}

// TestSession_NoOverlap checks SPEC §6.7: a second call on a busy session
// waits until the first has ended, then runs.
func TestSession_NoOverlap(t *testing.T) {
	s := start(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	var wg sync.WaitGroup
	for _, tag := range []string{"one", "two"} {
		wg.Add(1)
		go func(tag string) {
			defer wg.Done()
			inSession(t, s, "busy", "echo start-"+tag+" >>"+log+"; sleep 0.3; echo end-"+tag+" >>"+log)
		}(tag)
	}
	wg.Wait()
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	lines := strings.Fields(string(b))
	require.Len(t, lines, 4)
	require.Equal(t, strings.TrimPrefix(lines[0], "start-"), strings.TrimPrefix(lines[1], "end-"), "never overlap: %v", lines)
}

// TestSession_RestartStartsFresh checks SPEC §6.7: restart ends the shell
// first and says so.
func TestSession_RestartStartsFresh(t *testing.T) {
	s := start(t)
	inSession(t, s, "rs", "X=1")
	res := inSession(t, s, "rs", "echo \"[$X]\"", map[string]any{"restart": true})
	require.Equal(t, "[]\n", res.Stdout)
	require.True(t, res.Session.Started)
	require.Contains(t, res.Session.Notice, sessionFresh)
	e := s.callErr(t, "tools/bash", map[string]any{"command": "true", "restart": true})
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	e = s.callErr(t, "tools/bash", map[string]any{"command": "true", "session": "bad name"})
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
}

// TestSession_BackgroundOutputCounted checks SPEC §6.7: a job's output after
// its command's reply is never attributed to a later command.
func TestSession_BackgroundOutputCounted(t *testing.T) {
	s := start(t)
	res := inSession(t, s, "bg", "(sleep 0.3; echo late-output) & echo now")
	require.Equal(t, "now\n", res.Stdout)
	time.Sleep(600 * time.Millisecond) // ordering, not speed: the job has written
	next := inSession(t, s, "bg", "echo mine")
	require.Equal(t, "mine\n", next.Stdout)
	require.Equal(t, int64(len("late-output\n")), next.Session.BackgroundBytes)
}

// spillPath matches a spill file's path in a marker.
var spillPath = regexp.MustCompile(`/\S*bash-std(out|err)\S*`)

// TestSession_SandboxConfinesAndUpdateEnds checks SPEC §6.7 with §14: a
// session's shell runs under the policy in force when it started, and a
// sandbox/update that changes the policy ends it; the next command says its
// state was lost and why, and runs under the new policy.
func TestSession_SandboxConfinesAndUpdateEnds(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, map[string]any{"mode": "workspace-write"})
		target := filepath.Join(b.outside, "from-session")
		res := inSession(t, b.s, "sb", "cd "+b.ws+"; X=kept; echo x > "+target)
		require.NotEqual(t, 0, *res.ExitCode, "the shell is confined")
		require.NoFileExists(t, target)
		require.Equal(t, "kept\n", inSession(t, b.s, "sb", "echo $X").Stdout)
		b.s.call(t, "sandbox/update", map[string]any{"mode": "workspace-write", "writable": []string{b.outside}})
		res = inSession(t, b.s, "sb", "echo \"[$X]\"; echo x > "+target)
		require.Equal(t, "[]\n", res.Stdout)
		require.True(t, res.Session.Started)
		require.Equal(t, "state was lost (a sandbox/update changed the sandbox policy the shell ran under): "+sessionFresh, res.Session.Notice)
		require.Equal(t, 0, *res.ExitCode, res.Stderr)
		require.FileExists(t, target)
	})
}

// TestSession_MCPFace checks SPEC §6.7 on the MCP face: bash takes session
// and restart, and its text ends with the session's notice.
func TestSession_MCPFace(t *testing.T) {
	m := mcpStart(t, mcpOptions{})
	m.ok(t, "bash", map[string]any{"command": "cd /tmp; X=mcp", "session": "m"})
	_, sc := m.ok(t, "bash", map[string]any{"command": "echo $PWD $X", "session": "m"})
	require.Equal(t, "/tmp mcp\n", decode[sessionRes](t, sc).Stdout)
	res, sc := m.ok(t, "bash", map[string]any{"command": "exit 5", "session": "m"})
	r := decode[sessionRes](t, sc)
	require.Equal(t, 5, *r.ExitCode)
	require.True(t, r.Session.Ended)
	require.Contains(t, text(res), "[session m: the shell exited with code 5: "+sessionLost+"]")
	_, sc = m.ok(t, "bash", map[string]any{"command": "echo \"[$X]\"", "session": "m", "restart": true})
	require.Equal(t, "[]\n", decode[sessionRes](t, sc).Stdout)
}

// TestSession_ShutdownKillsJobs checks SPEC §6.7: a session's background
// jobs die with the server's shutdown.
func TestSession_ShutdownKillsJobs(t *testing.T) {
	s := start(t)
	mark := newMark(t)
	res := inSession(t, s, "jobs", "setsid sleep 1000 & (sleep 1000 &); sleep 1000 & echo started", map[string]any{"env": map[string]string{"TESTMARK": mark}})
	require.Equal(t, "started\n", res.Stdout)
	require.Eventually(t, func() bool { return len(markHolders(mark)) >= 3 }, time.Minute, 5*time.Millisecond)
	s.stop(t)
	require.Empty(t, markHolders(mark), "0 survivors in /proc")
}

// TestSession_PlumbingInvisible checks SPEC §6.7: a would-be delimiter, a
// DEBUG trap and PS1 or PROMPT_COMMAND a command sets never leak into the
// next result, and exec of another program ends the session with its code.
func TestSession_PlumbingInvisible(t *testing.T) {
	s := start(t)
	res := inSession(t, s, "pl", "echo '__toolrpc_post 0 0'; printf '%s 0\\n' 0123456789abcdef; printf partial")
	require.Equal(t, "__toolrpc_post 0 0\n0123456789abcdef 0\npartial", res.Stdout)
	inSession(t, s, "pl", "PS1='prompt> '; PROMPT_COMMAND='echo pc'; trap 'echo dbg' DEBUG")
	res = inSession(t, s, "pl", "true")
	require.Equal(t, "dbg\n", res.Stdout, "the trap runs for the command's own simple command only")
	require.Equal(t, "", res.Stderr)
	res = inSession(t, s, "pl", "exec sh -c 'exit 4'")
	require.Equal(t, 4, *res.ExitCode)
	require.True(t, res.Session.Ended)
	require.Equal(t, "the shell exited with code 4: "+sessionLost, res.Session.Notice)
}
