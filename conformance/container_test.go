package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// podmanExceptions are the tests the re-run through `podman exec -i` leaves
// out, each for a reason of the transport, not of the server:
//   - TestRemote_, TestContainer_: they start their own sshd or containers;
//     the re-run must not recurse.
//   - TestHostile_UnreadableFiles runs the binary under setpriv as nobody;
//     through podman that is the podman client, which nobody may not run.
//     In a container the server's user is the exec's --user.
//   - TestEnding_HostStopsReading watches the local process (the podman
//     client) exit while its stdout is unread; that tests podman.
//   - TestHostDeath_ProcessIDDiesPipesOpen needs a host that is an ancestor
//     of the server; no process outside the container is one.
var podmanExceptions = []string{
	"TestRemote_",
	"TestContainer_",
	"TestHostile_UnreadableFiles$",
	"TestEnding_HostStopsReading$",
	"TestHostDeath_ProcessIDDiesPipesOpen$",
}

// TestContainer_SuiteOverPodman re-runs this test binary — the whole suite —
// with -bin pointing at a wrapper that runs the server in a podman container
// (`podman exec -i -w DIR ctr toolrpc`), and requires every test it lists to
// pass, except podmanExceptions. The server is the static release build.
//
// What the container shares with this machine, and why:
//   - TMPDIR of the re-run is a dir mounted at the same path, so every
//     workspace and data dir a test makes is one path on both sides.
//   - GOROOT, read-only: TestLoad_MixedConcurrentCalls greps it as a large
//     real tree (an external root).
//   - The PID namespace (--pid=host): the suite's hosts (node/host.js, the
//     TypeScript client's tests, TestMCPNodeClient) check through /proc the
//     pids their commands print, which in a private namespace name other
//     processes here. The processId rule still applies: no process of the
//     suite is an ancestor of a server podman exec starts (conmon detaches).
//     Private namespaces are the TestContainer_* cases below.
func TestContainer_SuiteOverPodman(t *testing.T) {
	ws := containerTempDir(t)
	goroot := runtime.GOROOT()
	c := startContainer(t, bookwormImage, ws, "--pid=host", "-v", goroot+":"+goroot+":ro")
	wrapper := c.writeWrapper(t, podmanWrapper{})
	runSuiteThrough(t, "podman", wrapper, podmanExceptions, "TMPDIR="+ws, pidnsEnv+"="+c.PIDNS)
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
			eventually(t, "the call spilled its cut output", func() (bool, string) {
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
