package conformance

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
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
)

// tcpProxy forwards TCP connections to a target and drops them on demand,
// the way a network does: reset (an RST to both ends, as when a NAT or
// firewall forgets the flow) or blackhole (bytes go nowhere and the sockets
// stay open, as when a cable is pulled or a laptop sleeps). It needs no
// privileges and no kernel socket-destroy support.
type tcpProxy struct {
	Port int

	l       net.Listener
	target  string
	mu      sync.Mutex
	conns   []*net.TCPConn
	stalled bool
}

// startProxy listens on a loopback port and forwards to target until the
// test ends.
func startProxy(t testing.TB, target string) *tcpProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &tcpProxy{Port: l.Addr().(*net.TCPAddr).Port, l: l, target: target}
	go p.accept()
	t.Cleanup(func() { l.Close(); p.reset() })
	return p
}

func (p *tcpProxy) accept() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		a, b := c.(*net.TCPConn), up.(*net.TCPConn)
		p.mu.Lock()
		p.conns = append(p.conns, a, b)
		p.mu.Unlock()
		go p.pipe(a, b)
		go p.pipe(b, a)
	}
}

// pipe copies src to dst; once blackholed it reads and discards.
func (p *tcpProxy) pipe(dst, src *net.TCPConn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		stalled := p.stalled
		p.mu.Unlock()
		if n > 0 && !stalled {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) && !stalled {
				_ = dst.CloseWrite()
			}
			return
		}
	}
}

// reset aborts every connection: SO_LINGER 0 makes close send an RST.
func (p *tcpProxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.SetLinger(0)
		_ = c.Close()
	}
	p.conns = nil
}

// blackhole stops forwarding; both ends keep their sockets and hear nothing.
func (p *tcpProxy) blackhole() {
	p.mu.Lock()
	p.stalled = true
	p.mu.Unlock()
}

// comm is a process's command name, "" when it is gone.
func comm(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// ppidOf is a process's parent pid, 0 when it is gone.
func ppidOf(pid int) int {
	for _, p := range procsWhere(func(p proc, _ []byte) bool { return p.pid == pid }) {
		return p.ppid
	}
	return 0
}

// remoteCall is a remote server running hostDeathCommand through ssh.
type remoteCall struct {
	s    *server
	pid  int // the remote server
	mark string
	id   json.RawMessage
}

// quietHostDeathCommand is hostDeathCommand without output: a detached
// grandchild, a child, and a shell waiting for them.
const quietHostDeathCommand = `setsid sleep 600 & sleep 600 & wait`

// startRemoteCall starts the server through wrapperPath without processId
// (a host's pid means nothing on another machine, README "Remote
// workspaces"), so only the transport can tell it the host died, and runs
// command (hostDeathCommand or quietHostDeathCommand), which leaves a setsid
// grandchild. opts are more start options (a workspace a container mounts).
func startRemoteCall(t *testing.T, wrapperPath, command string, opts ...option) *remoteCall {
	useBin(t, wrapperPath)
	s := start(t, append([]option{withInitParams(func(p map[string]any) { delete(p, "processId") })}, opts...)...)
	c := &remoteCall{s: s, pid: waitRemotePID(s, replyWait), mark: loadMark(t)}
	require.NotZero(t, c.pid, "the wrapper reported no remote pid:\n%s", s.stderr.String())
	require.NotEqual(t, s.cmd.Process.Pid, c.pid)
	kv := strings.SplitN(c.mark, "=", 2)
	c.id = s.send(t, "tools/bash", map[string]any{"command": command, "env": map[string]string{kv[0]: kv[1]}, "timeout": 600})
	eventually(t, "the remote call runs (and streams, if it prints)", func() (bool, string) {
		m := marked(c.mark)
		return (command == quietHostDeathCommand || len(s.progress(c.id)) > 0) && len(m) >= 3, fmt.Sprint(m)
	})
	eventually(t, "a sleeper of the call runs in its own session (setsid)", func() (bool, string) {
		m := marked(c.mark)
		for _, p := range m {
			if strings.HasPrefix(p.cmdline, "sleep") && sessionOf(p.pid) == p.pid {
				return true, ""
			}
		}
		return false, fmt.Sprint(m)
	})
	t.Cleanup(func() {
		if alive(c.pid) {
			_ = signalPid(c.pid, syscall.SIGKILL)
		}
	})
	return c
}

// requireRemoteGone waits until the remote server has exited, no process of
// its call survives and its session's scratch dir is gone (a finished
// shutdown), and returns how long that took since killed.
func (c *remoteCall) requireRemoteGone(t *testing.T, killed time.Time) time.Duration {
	eventually(t, "the remote server exited and no process of its call survives", func() (bool, string) {
		m := marked(c.mark)
		return !alive(c.pid) && len(m) == 0, fmt.Sprintf("server alive %v, call processes %v", alive(c.pid), m)
	})
	took := time.Since(killed)
	_, err := os.Stat(filepath.Join(c.s.DataDir, "scratch", c.s.SessionID))
	require.True(t, os.IsNotExist(err), "scratch dir left behind: the remote server did not finish its shutdown")
	return took
}

// TestRemote_HostDeathOverSSH kills the host side of an ssh transport while
// a remote call runs a tree with a setsid grandchild, in each way a host or
// a network dies. In every case the remote server must exit and take the
// whole call tree with it: sshd closes the session's pipes, the server reads
// EOF (= shutdown + exit) and kills the trees (SPEC §1, §6.6). The times are
// logged (go test -v); the wait is bounded by settleBackstop.
//
// The blackhole case runs a quiet call: sshd (9.2) sends its ClientAlive
// probe only after a whole interval without traffic, so while a call streams
// output the probe waits until the ssh channel window (2 MB) has filled —
// measured at 3m25s for hostDeathCommand's output rate (README "Remote
// workspaces"). A network that resets (TCP reset) is noticed at once.
func TestRemote_HostDeathOverSSH(t *testing.T) {
	// A silent network is noticed only by keepalives; sshd sends none by
	// default. These are the settings README "Remote workspaces" advises.
	d := startSSHD(t, "ClientAliveInterval 1", "ClientAliveCountMax 3")
	server := plainServer(t)
	direct := d.writeWrapper(t, server, wrapper{})
	cases := []struct {
		name    string
		command string
		kill    func(t *testing.T, c *remoteCall)
		// drop, when set, runs the session through a tcpProxy and drops it.
		drop func(p *tcpProxy)
	}{
		{name: "ssh client SIGKILL", command: hostDeathCommand, kill: func(t *testing.T, c *remoteCall) {
			require.Equal(t, "ssh", comm(c.s.cmd.Process.Pid))
			require.NoError(t, c.s.cmd.Process.Kill())
		}},
		{name: "sshd session process SIGKILL", command: hostDeathCommand, kill: func(t *testing.T, c *remoteCall) {
			session := ppidOf(c.pid)
			require.Equal(t, "sshd", comm(session), "the remote server's parent is not the sshd session process")
			require.NoError(t, signalPid(session, syscall.SIGKILL))
		}},
		{name: "stdin EOF", command: hostDeathCommand, kill: func(t *testing.T, c *remoteCall) {
			require.NoError(t, c.s.stdin.Close())
			require.Equal(t, 0, c.s.waitExit(t), "ssh relays the remote exit status: EOF is shutdown + exit")
		}},
		{name: "TCP reset", command: hostDeathCommand, drop: (*tcpProxy).reset},
		{name: "TCP blackhole, quiet call", command: quietHostDeathCommand, drop: (*tcpProxy).blackhole},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := direct
			var p *tcpProxy
			if tc.drop != nil {
				p = startProxy(t, fmt.Sprintf("127.0.0.1:%d", d.Port))
				path = d.writeWrapper(t, server, wrapper{name: fmt.Sprintf("via-proxy-%d", p.Port), port: p.Port})
			}
			c := startRemoteCall(t, path, tc.command)
			killed := time.Now()
			if p != nil {
				tc.drop(p)
			} else {
				tc.kill(t, c)
			}
			took := c.requireRemoteGone(t, killed)
			if p != nil {
				p.reset() // the blackholed ssh client learns it too, and exits
			}
			t.Logf("%s: remote server and its call tree gone %v after the host side died", tc.name, took.Round(time.Millisecond))
		})
	}
}

// TestRemote_HostStopsReadingOverSSH is TestEnding_HostStopsReading across
// ssh: a remote call streams, the host stops reading the ssh client's stdout
// and stderr (ssh's buffers, the channel window and the remote pipe fill),
// then the host side ends. The remote server must still kill the call's
// tree and exit; the ssh client itself keeps its buffered output until
// someone reads it, which is ssh's business.
//
// Checks SPEC §1, §12.
func TestRemote_HostStopsReadingOverSSH(t *testing.T) {
	linuxOnly(t, "counts the bytes waiting in a pipe (TIOCINQ)")
	d := startSSHD(t)
	wrapperPath := d.writeWrapper(t, plainServer(t), wrapper{})
	endings := []struct {
		name string
		end  func(t *testing.T, client *exec.Cmd, stdin io.Closer)
	}{
		{"stdin EOF", func(t *testing.T, _ *exec.Cmd, stdin io.Closer) { require.NoError(t, stdin.Close()) }},
		{"ssh client SIGKILL", func(t *testing.T, client *exec.Cmd, _ io.Closer) { require.NoError(t, client.Process.Kill()) }},
	}
	for _, tc := range endings {
		t.Run(tc.name, func(t *testing.T) {
			mark := loadMark(t)
			kv := strings.SplitN(mark, "=", 2)
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			errR, errW, err := os.Pipe()
			require.NoError(t, err)
			t.Cleanup(func() { outR.Close(); errR.Close() })
			client := exec.Command(wrapperPath)
			client.Dir = t.TempDir()
			client.Env = append(os.Environ(), reportPIDEnv+"=1")
			client.Stdout, client.Stderr = outW, errW
			stdin, err := client.StdinPipe()
			require.NoError(t, err)
			require.NoError(t, client.Start())
			outW.Close()
			errW.Close()
			t.Cleanup(func() { _ = client.Process.Kill(); _ = client.Wait() })
			// The pid line comes first on stderr; nothing else is read.
			line, err := bufio.NewReader(io.LimitReader(errR, 64)).ReadString('\n')
			require.NoError(t, err)
			pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, remotePIDLine)))
			require.NoError(t, err, line)
			t.Cleanup(func() {
				if alive(pid) {
					_ = signalPid(pid, syscall.SIGKILL)
				}
			})
			for _, msg := range []map[string]any{
				{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
					"rootUri": "file://" + client.Dir, "capabilities": map[string]any{},
					"initializationOptions": map[string]any{"dataDir": t.TempDir(), "sessionId": "ending"}}},
				{"jsonrpc": "2.0", "id": 2, "method": "tools/bash", "params": map[string]any{
					"command": hostDeathCommand, "env": map[string]string{kv[0]: kv[1]}, "timeout": 600}},
			} {
				b, err := json.Marshal(msg)
				require.NoError(t, err)
				_, err = fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(b), b)
				require.NoError(t, err)
			}
			eventually(t, "the call runs and the host's side of ssh is full", func() (bool, string) {
				n := unreadBytes(outR)
				return len(marked(mark)) >= 3 && n >= 48<<10, fmt.Sprintf("%d bytes unread", n)
			})
			began := time.Now()
			tc.end(t, client, stdin)
			eventually(t, "the remote server exited and no process of its call survives", func() (bool, string) {
				m := marked(mark)
				return !alive(pid) && len(m) == 0, fmt.Sprintf("server alive %v, call processes %v", alive(pid), m)
			})
			t.Logf("%s, stdout never read: remote server and its call tree gone %v later", tc.name, time.Since(began).Round(time.Millisecond))
		})
	}
}
