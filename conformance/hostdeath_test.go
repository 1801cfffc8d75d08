package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toolrpc/toolrpc/client"
)

// Host death (issue 10, SPEC §1 processId, §6.6). TestLifecycle_HostDeathEndsServer
// covers the exit status of an idle server whose processId dies.

// hostDeathCommand streams output for as long as it lives and leaves a
// detached grandchild (setsid) that only the server's tree kill can reach.
const hostDeathCommand = `setsid sleep 600 & sleep 600 & seq 1 100000; i=0; while :; do i=$((i+1)); echo "tick $i"; echo "tock $i" >&2; sleep 0.01; done`

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}

// TestHostDeathHelper is the host process of TestHostDeath_HostKilled: it
// spawns the server on pipes it alone holds, starts a streaming bash call,
// prints "READY <server pid>" once output flows, and blocks until killed.
//
// Checks SPEC §1.
func TestHostDeathHelper(t *testing.T) {
	if os.Getenv("TOOLRPC_HOSTDEATH_BIN") == "" {
		t.Skip("helper process of TestHostDeath_HostKilled, run only by it")
	}
	cmd := exec.Command(os.Getenv("TOOLRPC_HOSTDEATH_BIN"))
	cmd.Dir = os.Getenv("TOOLRPC_HOSTDEATH_ROOT")
	// stderr too is a pipe only the host reads, as in a real host: a log
	// line written after the host died must not kill the server (SIGPIPE).
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		panic(err)
	}
	conn, err := client.Start(cmd, client.Options{})
	if err != nil {
		panic(err)
	}
	go func() { _, _ = io.Copy(io.Discard, errPipe) }()
	_, err = conn.Initialize(context.Background(), &protocol.InitializeParams{
		RootURI:               protocol.DocumentURI(uri.File(cmd.Dir)),
		InitializationOptions: map[string]any{"dataDir": os.Getenv("TOOLRPC_HOSTDEATH_DATA"), "sessionId": "hostdeath"},
	})
	if err != nil {
		panic(err)
	}
	mark := strings.SplitN(os.Getenv("TOOLRPC_HOSTDEATH_MARK"), "=", 2)
	var ready sync.Once
	progress := client.WithProgress(func(json.RawMessage) {
		ready.Do(func() { fmt.Printf("READY %d\n", cmd.Process.Pid) })
	})
	_ = conn.Call(context.Background(), "tools/bash", map[string]any{
		"command": hostDeathCommand, "env": map[string]string{mark[0]: mark[1]}, "timeout": 600,
	}, nil, progress)
	os.Exit(3) // the call runs until this process is killed
}

// TestHostDeath_HostKilled SIGKILLs the host while a streaming call with a
// detached grandchild runs: the server sees its pipes close, kills the call's
// whole tree and exits.
//
// Checks SPEC §1, §6.6.
func TestHostDeath_HostKilled(t *testing.T) {
	mark := loadMark(t)
	data, root := t.TempDir(), t.TempDir()
	host := exec.Command(os.Args[0], "-test.run=^TestHostDeathHelper$", "-test.count=1")
	host.Env = append(os.Environ(),
		"TOOLRPC_HOSTDEATH_BIN="+bin, "TOOLRPC_HOSTDEATH_ROOT="+root,
		"TOOLRPC_HOSTDEATH_DATA="+data, "TOOLRPC_HOSTDEATH_MARK="+mark)
	out, err := host.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, host.Start())
	t.Cleanup(func() { _ = host.Process.Kill(); _ = host.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "helper never reported READY")
	pidText, ok := strings.CutPrefix(strings.TrimSpace(line), "READY ")
	require.True(t, ok, line)
	serverPid, err := strconv.Atoi(pidText)
	require.NoError(t, err)
	t.Cleanup(func() {
		if alive(serverPid) {
			_ = exec.Command("kill", "-9", pidText).Run()
		}
	})
	eventually(t, "the call's processes started", func() (bool, string) {
		m := marked(mark)
		return len(m) >= 3, fmt.Sprint(m) // bash, sleep, setsid sleep
	})
	setsidSleepers := procsWhere(func(p proc, env []byte) bool {
		return p.ppid != serverPid && strings.Contains(string(env), mark) && strings.HasPrefix(p.cmdline, "sleep")
	})
	require.NotEmpty(t, setsidSleepers)

	killed := time.Now()
	require.NoError(t, host.Process.Kill())
	_ = host.Wait()
	eventually(t, "the server exited", func() (bool, string) {
		return !alive(serverPid), "server pid " + pidText + " alive"
	})
	eventually(t, "no process of the call survives", func() (bool, string) {
		m := marked(mark)
		return len(m) == 0, fmt.Sprint(m)
	})
	t.Logf("server and call tree gone %v after the host's SIGKILL", time.Since(killed).Round(time.Millisecond))
	// The cancelled call spilled its cut stdout; a server that finished its
	// shutdown removed the session's scratch dir (SPEC §7). One killed on the
	// way — by SIGPIPE from a log line to the dead host's stderr — did not.
	// Through a transport the local process that exited is the transport's
	// client, which may go before the server inside has finished.
	eventually(t, "the session's scratch dir is removed", func() (bool, string) {
		_, err := os.Stat(filepath.Join(data, "scratch", "hostdeath"))
		return os.IsNotExist(err), "scratch dir left behind: the server did not finish its shutdown"
	})
	// Through a transport the server is not the process that exited: it is
	// gone once no process works in the workspace (podman exec runs it
	// there at the same path), and only then may the test remove its dirs.
	eventually(t, "the server exited", func() (bool, string) {
		in := procsWhere(func(p proc, _ []byte) bool {
			cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", p.pid))
			return err == nil && cwd == root
		})
		return len(in) == 0, fmt.Sprint("processes in the workspace: ", in)
	})
}

// TestHostDeath_ProcessIDDiesPipesOpen: the host named by processId (an
// ancestor: a shell between the test and the server) dies but the pipes stay
// open (held by the test). The server cancels the running call (its reply
// arrives, no chunk after it), kills its tree and exits 1.
//
// Checks SPEC §1.
func TestHostDeath_ProcessIDDiesPipesOpen(t *testing.T) {
	mark := loadMark(t)
	s := start(t, withHostAncestor())
	host := waitHostPID(t, s)
	kv := strings.SplitN(mark, "=", 2)
	id := s.send(t, "tools/bash", map[string]any{"command": hostDeathCommand, "env": map[string]string{kv[0]: kv[1]}, "timeout": 600})
	eventually(t, "the call streams and its processes started", func() (bool, string) {
		m := marked(mark)
		return len(s.progress(id)) > 0 && len(m) >= 3, fmt.Sprint(m)
	})

	killed := time.Now()
	require.NoError(t, signalPid(host, syscall.SIGKILL))
	require.Equal(t, 1, s.waitExit(t))
	exited := time.Since(killed)
	eventually(t, "no process of the call survives", func() (bool, string) {
		m := marked(mark)
		return len(m) == 0, fmt.Sprint(m)
	})
	f := s.waitTimeout(id, 0)
	require.NotNil(t, f, "the running call got no reply before the server exited")
	require.NotNil(t, f.Error)
	require.Equal(t, int64(-32800), f.Error.Code, f.Error.Message)
	requireNoProgressAfterReply(t, s, id, id)
	t.Logf("server exited %v after its processId died", exited.Round(time.Millisecond))
}
