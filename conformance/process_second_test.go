package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tests of issue 33's programs (SPEC §13.1, §13.2): prompts that only
// a look at every thread, or at an epoll set, finds; the reply to a write
// showing the screen drawn after the program took the keys; watchers'
// clear-screen; the prompt of a full-screen program.

// gitRepo makes dir a git repository with one staged file, so that `git
// commit` opens its editor there.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.name", "T"}, {"config", "user.email", "t@example.com"}} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	out, err := exec.Command("git", "-C", dir, "add", "a.txt").CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// TestProcess_InputNeovim checks SPEC §13.1 input: Neovim waits for the
// terminal in epoll_wait in a thread of its own (its TUI thread; the main
// thread waits on its event loop), with the terminal raw; it is
// awaitingInput, opened directly or as git's editor. The editors here run
// with -i NONE: under the default sandbox (SPEC §14) the home directory is
// not writable, and an editor that cannot write its ShaDa or viminfo waits
// for Enter before it exits (docs/sandbox.md).
func TestProcess_InputNeovim(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		gitRepo(t, f.root)
		for _, cmd := range []string{"nvim -u NONE -i NONE notes.txt", "GIT_EDITOR='nvim -u NONE -i NONE' git commit"} {
			r := f.ok(t, "start", map[string]any{"command": cmd, "mode": "pty", "wait": wait(longWait, "input", "exit")})
			require.Equal(t, "input", r.Reason, cmd)
			require.Equal(t, "awaitingInput", r.State, cmd)
			r = f.ok(t, "write", map[string]any{"id": r.ID, "data": ":q!", "keys": []string{"Enter"}, "wait": wait(longWait, "exit")})
			require.Equal(t, "exited", r.State, cmd)
		}
	})
}

// threadedReader is a Go program whose main thread stays locked and waits
// on a channel while another goroutine, on another thread, reads stdin.
const threadedReader = `package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
)

func init() { runtime.LockOSThread() }

func main() {
	got := make(chan string)
	go func() {
		fmt.Print("name? ")
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		got <- line
	}()
	fmt.Print("got ", <-got)
}
`

// TestProcess_InputOtherThread checks SPEC §13.1 input: a read blocked in
// a thread other than the process's first one is a prompt (python's
// threading, a Go program built here), on a pty and a pipe.
func TestProcess_InputOtherThread(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "reader")
	src := filepath.Join(t.TempDir(), "main.go")
	require.NoError(t, os.WriteFile(src, []byte(threadedReader), 0o644))
	out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput()
	require.NoError(t, err, "%s", out)
	py := `python3 -c "import threading; t=threading.Thread(target=lambda: print('got', input('name? '))); t.start(); t.join()"`
	onFaces(t, func(t *testing.T, f procFace) {
		for _, mode := range []string{"pty", "pipe"} {
			for _, cmd := range []string{py, bin} {
				r := f.ok(t, "start", map[string]any{"command": cmd, "mode": mode, "wait": wait(longWait, "input", "exit")})
				require.Equal(t, "input", r.Reason, "%s %s", mode, cmd)
				require.NotNil(t, r.Prompt)
				require.Equal(t, "name? ", r.Prompt.Text)
				r = f.ok(t, "write", map[string]any{"id": r.ID, "data": "bob\n", "wait": wait(longWait, "exit")})
				require.Contains(t, r.Output, "got bob\n")
			}
		}
	})
}

// TestProcess_WriteThenWait checks SPEC §13.1 input after a write: the
// reply comes once the program took what was written and drew what it
// draws for it. Vim as git's editor, sent "O", a subject and Esc, waits
// 100 ms after the Esc (is it a key's code?) before it leaves insert
// mode: the reply's screen shows the subject and no "-- INSERT --". On a
// pipe, a program that waits 300 ms for more after a line answers only
// after that wait.
func TestProcess_WriteThenWait(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		gitRepo(t, f.root)
		r := f.ok(t, "start", map[string]any{"command": "GIT_EDITOR='vim -i NONE' git commit", "mode": "pty", "wait": wait(longWait, "input", "exit")})
		require.Equal(t, "input", r.Reason)
		r = f.ok(t, "write", map[string]any{"id": r.ID, "data": "Osubject of the commit", "keys": []string{"Esc"}, "wait": wait(longWait, "input", "exit")})
		require.Equal(t, "input", r.Reason)
		require.Contains(t, r.Output, "subject of the commit")
		require.NotContains(t, r.Output, "-- INSERT --")
		r = f.ok(t, "write", map[string]any{"id": r.ID, "data": ":wq", "keys": []string{"Enter"}, "wait": wait(longWait, "exit")})
		require.Equal(t, 0, *r.ExitCode)
		subject, err := exec.Command("git", "-C", f.root, "log", "-1", "--format=%s").Output()
		require.NoError(t, err)
		require.Equal(t, "subject of the commit\n", string(subject))

		lingering := `python3 -u -c '
import select, sys
p = select.poll()
p.register(sys.stdin, select.POLLIN)
while True:
    line = sys.stdin.readline()
    p.poll(300)
    print("took", line.strip())'`
		r = f.ok(t, "start", map[string]any{"command": lingering, "wait": wait(longWait, "input", "exit")})
		require.Equal(t, "input", r.Reason)
		r = f.ok(t, "write", map[string]any{"id": r.ID, "data": "one\n", "wait": wait(longWait, "input", "exit")})
		require.Equal(t, "input", r.Reason)
		require.Equal(t, "took one\n", r.Output)

	})
}

// TestProcess_ClearScreenRendered checks SPEC §13.2: a watcher that clears
// the screen as vite does (rows-2 newlines, cursor home, erase below)
// renders to its banners, without the empty lines, in both modes.
func TestProcess_ClearScreenRendered(t *testing.T) {
	vite := `for i in 1 2 3; do printf '\n%.0s' $(seq 38); printf '\033[H\033[J\033[1;32mVITE\033[0m v5 ready in %d ms\n\n  \033[32m➜\033[0m  Local: http://localhost:5173/\n' $i; sleep 0.05; done`
	onFaces(t, func(t *testing.T, f procFace) {
		for _, mode := range []string{"pty", "pipe"} {
			r := f.ok(t, "start", map[string]any{"command": vite, "mode": mode, "wait": wait(longWait, "exit")})
			banner := func(i string) string {
				return "VITE v5 ready in " + i + " ms\n\n  ➜  Local: http://localhost:5173/\n"
			}
			require.Equal(t, banner("1")+banner("2")+banner("3"), r.Output, mode)
		}
	})
}

// topRow is a process row of top's table: PID USER PR NI ….
var topRow = regexp.MustCompile(`^\s*\d+\s+\S+\s+(rt|-?\d+)\s+-?\d+\s`)

// TestProcess_ScreenPrompt checks SPEC §13.1 prompt on the alternate
// screen: the prompt is the cursor's row when the cursor stands after its
// text (less's prompt row), else absent (top's table, a line of a file in vim);
// never a row of data.
func TestProcess_ScreenPrompt(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		require.NoError(t, os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte(strings.Repeat("data row\n", 100)), 0o644))
		for _, tc := range []struct{ cmd, want string }{
			{"top", ""},
			{"less notes.txt", "notes.txt"}, // less's prompt row names the file at first
			{"vim -u NONE notes.txt", ""},
		} {
			r := f.ok(t, "start", map[string]any{"command": tc.cmd, "mode": "pty", "wait": wait(longWait, "input", "exit")})
			require.Equal(t, "input", r.Reason, tc.cmd)
			require.Equal(t, "awaitingInput", r.State, tc.cmd)
			if tc.want == "" {
				require.Nil(t, r.Prompt, "%s: %+v", tc.cmd, r.Prompt)
			} else {
				require.NotNil(t, r.Prompt, tc.cmd)
				require.Equal(t, tc.want, r.Prompt.Text, tc.cmd)
				require.NotRegexp(t, topRow, r.Prompt.Text)
			}
			f.ok(t, "signal", map[string]any{"id": r.ID, "signal": "KILL"})
		}
	})
}
