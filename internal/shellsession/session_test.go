//go:build unix

package shellsession

import (
	"context"
	"testing"
	"time"

	"github.com/toolrpc/toolrpc/internal/shell"
)

// runIn runs command in session name of m and returns stdout, stderr, the exit code.
func runIn(t *testing.T, m *Manager, name, dir, command string) (string, string, int) {
	t.Helper()
	res, err := m.Run(context.Background(), Request{Name: name, Spec: shell.Spec{Command: command, Dir: dir, Timeout: 20 * time.Second}})
	if err != nil {
		t.Fatalf("%q: %v", command, err)
	}
	code := -1
	if res.ExitCode != nil {
		code = *res.ExitCode
	}
	return res.Stdout, res.Stderr, code
}

func TestSessionSmoke(t *testing.T) {
	m := NewManager(t.Logf)
	defer m.Close()
	dir := t.TempDir()
	steps := []struct {
		cmd, out, err string
		code          int
	}{
		{"cd /tmp; export FOO=bar; f(){ echo f$1; }; alias hi='echo alias'", "", "", 0},
		{"pwd; echo $FOO; f 1; hi", "/tmp\nbar\nf1\nalias\n", "", 0},
		{"echo err >&2; false", "", "err\n", 1},
		{"echo $?", "1\n", "", 0},
		{"read x; echo got=$x", "got=\n", "", 0},
		{"echo after-read", "after-read\n", "", 0},
		{"exec >/dev/null; echo hidden", "", "", 0},
		{"echo visible", "visible\n", "", 0},
	}
	for _, s := range steps {
		out, errs, code := runIn(t, m, "a", dir, s.cmd)
		if out != s.out || errs != s.err || code != s.code {
			t.Errorf("%q: got (%q, %q, %d), want (%q, %q, %d)", s.cmd, out, errs, code, s.out, s.err, s.code)
		}
	}
}

// TestIdleEndsShell checks SPEC §6.7: a shell idle past its time is ended,
// and the next command says its state was lost and why.
func TestIdleEndsShell(t *testing.T) {
	saved := idleAfter
	idleAfter = 50 * time.Millisecond
	defer func() { idleAfter = saved }()
	m := NewManager(t.Logf)
	defer m.Close()
	dir := t.TempDir()
	runIn(t, m, "idle", dir, "X=1")
	m.mu.Lock()
	s := m.sessions["idle"]
	m.mu.Unlock()
	deadline := time.Now().Add(time.Minute)
	for s.live() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	res, err := m.Run(context.Background(), Request{Name: "idle", Spec: shell.Spec{Command: "echo \"[$X]\"", Dir: dir, Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	want := "state was lost (the shell was idle for 50ms and was ended): this command ran in a new shell"
	if res.Stdout != "[]\n" || !res.Session.Started || res.Session.Notice != want {
		t.Fatalf("got %q %+v, want [] and notice %q", res.Stdout, res.Session, want)
	}
}

// TestErrexitAndDeathBetweenCommands checks SPEC §6.7: under set -e a
// command that ends non-zero ends the shell (set -e sees the status of the
// eval that runs it) and the result says so; a shell that died between
// commands is replaced, with the notice, before the next command.
func TestErrexitAndDeathBetweenCommands(t *testing.T) {
	m := NewManager(t.Logf)
	defer m.Close()
	dir := t.TempDir()
	runIn(t, m, "e", dir, "set -e; X=1")
	if out, _, _ := runIn(t, m, "e", dir, "echo $X; true"); out != "1\n" {
		t.Fatalf("set -e with a zero status keeps the shell: %q", out)
	}
	res, err := m.Run(context.Background(), Request{Name: "e", Spec: shell.Spec{Command: "false", Dir: dir, Timeout: time.Minute}})
	if err != nil || !res.Session.Ended || *res.ExitCode != 1 {
		t.Fatalf("set -e; false: %v %+v", err, res.Session)
	}
	runIn(t, m, "e", dir, "sleep 0.2 && kill -9 $$ &")
	time.Sleep(time.Second) // ordering: the job has killed the shell
	res, err = m.Run(context.Background(), Request{Name: "e", Spec: shell.Spec{Command: "echo fresh", Dir: dir, Timeout: time.Minute}})
	if err != nil || res.Stdout != "fresh\n" || !res.Session.Started ||
		res.Session.Notice != "state was lost (the shell ended after the previous command's reply): this command ran in a new shell" {
		t.Fatalf("after the shell died: %v %q %+v", err, res.Stdout, res.Session)
	}
}

// TestDriverSurvivesCommandState checks SPEC §6.7's invisible plumbing from
// the other side: what a command leaves in the shell does not break the
// driver around the next commands. A DEBUG trap that prints half a line
// runs before the driver's own commands too; functions named printf and
// read shadow the builtins the driver uses.
func TestDriverSurvivesCommandState(t *testing.T) {
	m := NewManager(t.Logf)
	defer m.Close()
	dir := t.TempDir()
	steps := []struct{ cmd, out string }{
		{"trap 'printf x' DEBUG", ""},
		{"echo hi", "xhi\n"},
		{"trap - DEBUG; printf() { echo fake; }; read() { echo fake; }", "x"}, // the trap runs before trap -
		{"echo after", "after\n"},
		{"printf '%s\\n' still", "fake\n"},
	}
	for _, s := range steps {
		res, err := m.Run(context.Background(), Request{Name: "d", Spec: shell.Spec{Command: s.cmd, Dir: dir, Timeout: 5 * time.Second}})
		if err != nil {
			t.Fatalf("%q: %v", s.cmd, err)
		}
		if res.Stdout != s.out || res.Session.Started != (s.cmd == steps[0].cmd) {
			t.Fatalf("%q: got %q (session %+v), want %q in the same shell", s.cmd, res.Stdout, res.Session, s.out)
		}
	}
}
