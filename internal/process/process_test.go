//go:build linux

package process

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// startT starts command in mode in a t.TempDir and kills it at the end.
func startT(t *testing.T, command string, mode Mode) *Process {
	t.Helper()
	dir := t.TempDir()
	p, err := Start(context.Background(), Spec{Command: command, Dir: dir, Mode: mode, Log: filepath.Join(dir, "log", "p.log")})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

// until waits up to 20 s (a generous bound for a loaded machine, not a
// timing assertion) for one of events.
func until(t *testing.T, p *Process, events ...Event) Outcome {
	t.Helper()
	w := DefaultWait()
	w.Until, w.Timeout = events, 20*time.Second
	o, err := p.Await(context.Background(), w)
	require.NoError(t, err)
	return o
}

func need(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Fatalf("%s is not installed (.ci/run installs it): %v", n, err)
		}
	}
}

func TestProcess_PromptsDetected(t *testing.T) {
	need(t, "python3", "node", "ssh-keygen")
	for _, tc := range []struct {
		name, cmd string
		mode      Mode
		prompt    string
		echo      bool
	}{
		{"bash read -p pipe", `read -p 'Name? ' n; echo "hi $n"`, Pipe, "", true}, // bash shows -p prompts on terminals only
		{"bash read -p pty", `read -p 'Name? ' n; echo "hi $n"`, PTY, "Name? ", true},
		{"python input pipe", `python3 -c 'input("> ")'`, Pipe, "> ", true},
		{"python input pty", `python3 -c 'input("> ")'`, PTY, "> ", true},
		{"python -i pty", `python3 -i -q`, PTY, ">>> ", true},
		{"python -i pipe", `python3 -i -q`, Pipe, ">>> ", true},
		{"node -i pty", `node -i`, PTY, "> ", true},
		{"ssh-keygen passphrase", `ssh-keygen -q -t ed25519 -f k`, PTY, "Enter passphrase", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startT(t, tc.cmd, tc.mode)
			o := until(t, p, EvInput, EvExit)
			require.Equal(t, EvInput, o.Reason)
			in := p.Info(o.Reason)
			require.Equal(t, AwaitingInput, in.State)
			require.NotNil(t, in.Prompt)
			require.Contains(t, in.Prompt.Text, tc.prompt)
			require.Equal(t, tc.echo, in.Prompt.Echo)
		})
	}
}

func TestProcess_AnswerPrompt(t *testing.T) {
	for _, mode := range []Mode{Pipe, PTY} {
		t.Run(string(mode), func(t *testing.T) {
			p := startT(t, `read -p 'Name? ' n; echo "hi $n"`, mode)
			require.Equal(t, EvInput, until(t, p, EvInput, EvExit).Reason)
			out, err := p.Read(nil, 0)
			require.NoError(t, err)
			if mode == PTY {
				require.Equal(t, "Name? ", out.Text)
			}
			require.NoError(t, p.Write([]byte("bob\n"), false))
			require.Equal(t, EvExit, until(t, p, EvExit).Reason)
			out, err = p.Read(nil, 0)
			require.NoError(t, err)
			if mode == PTY {
				require.Equal(t, "bob\nhi bob\n", out.Text)
			} else {
				require.Equal(t, "hi bob\n", out.Text)
			}
			in := p.Info("")
			require.Equal(t, Exited, in.State)
			require.Equal(t, 0, *in.ExitCode)
		})
	}
}

func TestProcess_NoFalseInput(t *testing.T) {
	need(t, "python3", "tail", "go")
	for _, tc := range []struct{ name, cmd string }{
		{"sleep", "sleep 5"},
		{"yes head", "yes | head -c 100M > /dev/null; sleep 5"},
		{"tail -f", "f=$(mktemp); (while :; do echo x >> $f; sleep 0.2; done) & tail -f $f"},
		{"socket poller", `python3 -c 'import socket,select; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); select.select([s],[],[],10)'`},
		{"http.server", "python3 -m http.server 0 --bind 127.0.0.1"},
		{"go build", `d=$(mktemp -d) && cd $d && printf 'module m\n\ngo 1.21\n' > go.mod && printf 'package main\n\nfunc main() {}\n' > m.go && go build -o m . && rm -rf $d; sleep 5`},
	} {
		for _, mode := range []Mode{Pipe, PTY} {
			t.Run(tc.name+" "+string(mode), func(t *testing.T) {
				t.Parallel()
				p := startT(t, tc.cmd, mode)
				w := Wait{Until: []Event{EvInput, EvExit}, Timeout: 3 * time.Second}
				o, err := p.Await(context.Background(), w)
				require.NoError(t, err)
				require.Equal(t, EvTimeout, o.Reason)
				require.NotEqual(t, AwaitingInput, p.Info(o.Reason).State)
			})
		}
	}
}

func TestProcess_PortReported(t *testing.T) {
	need(t, "python3")
	p := startT(t, "python3 -m http.server 0 --bind 127.0.0.1", Pipe)
	o := until(t, p, EvPort, EvExit)
	require.Equal(t, EvPort, o.Reason)
	require.Len(t, o.Ports, 1)
	require.NotZero(t, o.Ports[0])
	require.Equal(t, o.Ports, p.Info(o.Reason).Ports)
}

func TestProcess_BackgroundChildDoesNotDelayExit(t *testing.T) {
	p := startT(t, "sleep 30 & echo started; exit 3", Pipe)
	require.Equal(t, EvExit, until(t, p, EvExit).Reason)
	in := p.Info(EvExit)
	require.Equal(t, 3, *in.ExitCode)
	require.Equal(t, 1, in.DescendantsKilled)
	out, err := p.Read(nil, 0)
	require.NoError(t, err)
	require.Equal(t, "started\n", out.Text)
}

func TestProcess_TermThenKill(t *testing.T) {
	p := startT(t, `trap 'echo got TERM' TERM; echo ready; while :; do sleep 0.1; done`, Pipe)
	w := DefaultWait()
	w.Until, w.Pattern, w.Timeout = []Event{EvPattern}, regexp.MustCompile("ready"), 20*time.Second
	o, err := p.Await(context.Background(), w)
	require.NoError(t, err)
	require.Equal(t, EvPattern, o.Reason)
	require.NoError(t, p.Signal(context.Background(), syscall.SIGTERM, 300*time.Millisecond))
	require.True(t, p.Exited())
	in := p.Info(EvSignal)
	require.Equal(t, "SIGKILL", in.Signal)
	out, _ := p.Read(nil, 0)
	require.Contains(t, out.Text, "got TERM")
}

func TestProcess_PatternMatched(t *testing.T) {
	p := startT(t, `echo one; sleep 0.2; echo "Local: http://localhost:5173/"; sleep 30`, Pipe)
	w := DefaultWait()
	w.Until, w.Pattern, w.Timeout = []Event{EvPattern}, regexp.MustCompile(`Local: +http`), 20*time.Second
	o, err := p.Await(context.Background(), w)
	require.NoError(t, err)
	require.Equal(t, EvPattern, o.Reason)
	require.Equal(t, "Local: http://localhost:5173/", o.Matched)
}

func TestProcess_EOFClosesStdin(t *testing.T) {
	p := startT(t, `cat; echo done`, Pipe)
	require.NoError(t, p.Write([]byte("a\n"), true))
	require.Equal(t, EvExit, until(t, p, EvExit).Reason)
	out, _ := p.Read(nil, 0)
	require.Equal(t, "a\ndone\n", out.Text)
	require.ErrorIs(t, p.Write([]byte("x"), false), ErrExited)
}

func TestProcess_ScreenSnapshot(t *testing.T) {
	need(t, "less")
	dir := t.TempDir()
	f := filepath.Join(dir, "f.txt")
	require.NoError(t, os.WriteFile(f, []byte("alpha\nbeta\ngamma\n"), 0o644))
	p := startT(t, "less "+f, PTY)
	require.Equal(t, EvInput, until(t, p, EvInput, EvExit).Reason)
	out, err := p.Read(nil, 0)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(out.Text, ScreenHeader(120, 40)+"\nalpha\nbeta\ngamma\n"), "%q", out.Text)
	checkRendered(t, []byte(out.Text))
}

func TestProcess_VimScreen(t *testing.T) {
	need(t, "vim")
	dir := t.TempDir()
	f := filepath.Join(dir, "f.txt")
	require.NoError(t, os.WriteFile(f, []byte("first line\nsecond line\n"), 0o644))
	p := startT(t, "vim -u NONE -N "+f, PTY)
	require.Equal(t, EvInput, until(t, p, EvInput, EvExit).Reason)
	out, err := p.Read(nil, 0)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(out.Text, ScreenHeader(120, 40)+"\nfirst line\nsecond line\n~\n"), "%q", out.Text)
	checkRendered(t, []byte(out.Text))
	require.NoError(t, p.Write([]byte("\x1b:q!\r"), false))
	require.Equal(t, EvExit, until(t, p, EvExit).Reason)
}

// TestProcess_DebianPrompt: apt-get stops at "Do you want to continue?
// [Y/n]" (dpkg told to act on nothing, and the answer is n).
func TestProcess_DebianPrompt(t *testing.T) {
	need(t, "apt-get")
	if os.Geteuid() != 0 {
		t.Fatal("apt-get asks [Y/n] only as root; CI runs as root")
	}
	p := startT(t, "apt-get -o Debug::NoLocking=1 -o Dpkg::Options::=--no-act remove less", PTY)
	require.Equal(t, EvInput, until(t, p, EvInput, EvExit).Reason)
	in := p.Info(EvInput)
	require.Equal(t, AwaitingInput, in.State)
	require.Equal(t, "Do you want to continue? [Y/n] ", in.Prompt.Text)
	require.NoError(t, p.Write([]byte("n\n"), false))
	require.Equal(t, EvExit, until(t, p, EvExit).Reason)
}

// TestProcess_GitCloneAsksUsername: git clone of a loopback URL answered
// 401 asks for a username on the terminal.
func TestProcess_GitCloneAsksUsername(t *testing.T) {
	need(t, "git")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
		http.Error(w, "auth required", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	p, err := Start(context.Background(), Spec{Command: "git clone " + srv.URL + "/repo.git", Dir: dir, Mode: PTY,
		Env: []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=", "SSH_ASKPASS="},
		Log: filepath.Join(dir, "p.log")})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	require.Equal(t, EvInput, until(t, p, EvInput, EvExit).Reason)
	in := p.Info(EvInput)
	require.True(t, strings.HasPrefix(in.Prompt.Text, "Username for 'http://127.0.0.1:"), in.Prompt.Text)
	require.NoError(t, p.Write([]byte("u\n"), false))
	require.Equal(t, EvInput, until(t, p, EvInput, EvExit).Reason)
	in = p.Info(EvInput)
	require.Contains(t, in.Prompt.Text, "Password for")
	require.False(t, in.Prompt.Echo)
}
