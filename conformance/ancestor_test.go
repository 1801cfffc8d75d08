package conformance

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The processId rule (issue 25, SPEC §1): the server honours processId only
// when that process is its ancestor in its own PID namespace; any other
// processId is ignored with notAncestorLine and host death is left to stdin
// EOF. A host across ssh or `podman exec` names a process the server cannot
// see, or an unrelated one that happens to have that pid.

// notAncestorLine is the log line of a processId the server ignores.
func notAncestorLine(pid int) string {
	return fmt.Sprintf("processId %d is not an ancestor of this server (a transport or another PID namespace?); host death is detected by stdin EOF", pid)
}

// launcherEnv=1 runs this test binary as hostLauncher (TestMain).
const launcherEnv = "TOOLRPC_CONFORMANCE_LAUNCHER"

// hostPIDLine is what hostLauncher writes to stderr first: the pid of the
// shell that starts the server, the host a test names as processId.
const hostPIDLine = "toolrpc-host-pid "

// hostShell is the host between hostLauncher and the server: it starts the
// server in the background with the shell's own stdin (an asynchronous
// command's stdin is /dev/null unless redirected), tells hostLauncher the
// server's pid on fd 3 and waits, as a host that wraps the server in a shell
// does.
const hostShell = `exec 5<&0; "$@" <&5 5<&- 3>&- & echo $! >&3; exec 3>&- 5<&-; wait`

// hostLauncher runs args (the server and its arguments) under a shell that
// a test can kill while the server's pipes stay open, and exits with the
// server's status. It is a child subreaper, so the server, orphaned when the
// shell dies, is reparented to it and its status is still known:
// test → hostLauncher → sh (the host, processId) → server.
func hostLauncher(args []string) int {
	os.Unsetenv(launcherEnv)
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "launcher: subreaper:", err)
		return 2
	}
	sh := exec.Command("sh", append([]string{"-c", hostShell, "sh"}, args...)...)
	sh.Stdin, sh.Stdout, sh.Stderr = os.Stdin, os.Stdout, os.Stderr
	pr, pw, err := os.Pipe()
	if err == nil {
		sh.ExtraFiles = []*os.File{pw}
		err = sh.Start()
		pw.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "launcher:", err)
		return 2
	}
	fmt.Fprintf(os.Stderr, "%s%d\n", hostPIDLine, sh.Process.Pid)
	b, _ := io.ReadAll(pr)
	server, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "launcher: the shell reported no server pid (%q)\n", b)
		return 2
	}
	// Reap every child — the shell, the server once reparented here, and
	// orphans of its calls — until the server has exited; its status is ours.
	status, err := reapUntil(server)
	if err != nil {
		fmt.Fprintln(os.Stderr, "launcher: wait:", err)
	}
	return status
}

// waitHostPID returns the pid hostLauncher reported for the host shell.
func waitHostPID(t testing.TB, s *server) int {
	t.Helper()
	deadline := time.Now().Add(replyWait)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(s.stderr.String(), "\n") {
			if v, ok := strings.CutPrefix(line, hostPIDLine); ok {
				p, err := strconv.Atoi(strings.TrimSpace(v))
				require.NoError(t, err, line)
				return p
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the launcher reported no host pid:\n%s", s.stderr.String())
	return 0
}

// overTransport reports whether the suite runs through a transport wrapper
// (ssh, podman exec), where no local process is an ancestor of the server.
func overTransport() bool { return os.Getenv(transportEnv) != "" }

// TestLifecycle_ProcessIDNotAncestorIgnored: a processId that is not the
// server's ancestor — here a live sibling process, which then dies — is
// ignored with exactly one log line, and the server keeps serving. Then the
// pid the harness sends (this test process): locally the server's parent,
// honoured without a line; through a transport not an ancestor, so ignored.
//
// Checks SPEC §1 (processId, Ending), §12 Remote.
func TestLifecycle_ProcessIDNotAncestorIgnored(t *testing.T) {
	t.Run("a sibling process", func(t *testing.T) {
		stranger := exec.Command("sleep", "1000")
		require.NoError(t, stranger.Start())
		t.Cleanup(func() { _ = stranger.Process.Kill(); _ = stranger.Wait() })
		pid := stranger.Process.Pid
		s := start(t, withInitParams(func(p map[string]any) { p["processId"] = pid }))
		require.NoError(t, stranger.Process.Kill())
		_ = stranger.Wait()
		r := decode[bashRes](t, s.call(t, "tools/bash", map[string]any{"command": "echo still serving"}))
		require.Equal(t, "still serving\n", r.Stdout)
		require.Equal(t, 1, strings.Count(s.stderr.String(), notAncestorLine(pid)), "want the line once in:\n%s", s.stderr.String())
		require.NotContains(t, s.stderr.String(), fmt.Sprintf("host process %d is gone", pid))
		s.stdin.Close()
		require.Equal(t, 0, s.waitExit(t), "EOF still ends the server")
	})
	t.Run("the harness's pid", func(t *testing.T) {
		s := start(t)
		s.call(t, "tools/list", nil)
		line := notAncestorLine(os.Getpid())
		if overTransport() {
			eventually(t, "the server logs that it ignores processId", func() (bool, string) {
				return strings.Count(s.stderr.String(), line) == 1, s.stderr.String()
			})
		} else {
			require.NotContains(t, s.stderr.String(), line, "this process is the server's parent")
		}
	})
}

// TestLifecycle_HostDeathEndsServer: the host named by processId is an
// ancestor (a shell between this test and the server) and dies while the
// pipes stay open: the server exits 1. Through a transport no local process
// is the server's ancestor: the processId is ignored, the server keeps
// serving after the shell died, and stdin EOF ends it (status 0).
//
// Checks SPEC §1 (processId, Ending), §12 Remote.
func TestLifecycle_HostDeathEndsServer(t *testing.T) {
	s := start(t, withHostAncestor())
	host := waitHostPID(t, s)
	s.call(t, "tools/list", nil)
	require.NoError(t, signalPid(host, syscall.SIGKILL))
	if !overTransport() {
		require.Equal(t, 1, s.waitExit(t))
		require.Contains(t, s.stderr.String(), fmt.Sprintf("host process %d is gone; exiting", host))
		require.NotContains(t, s.stderr.String(), "is not an ancestor")
		return
	}
	eventually(t, "the host shell is gone", func() (bool, string) { return !alive(host), "" })
	r := decode[bashRes](t, s.call(t, "tools/bash", map[string]any{"command": "echo still serving"}))
	require.Equal(t, "still serving\n", r.Stdout)
	require.Contains(t, s.stderr.String(), notAncestorLine(host))
	s.stdin.Close()
	require.Equal(t, 0, s.waitExit(t))
}
