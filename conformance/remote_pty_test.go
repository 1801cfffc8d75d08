package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRemote_PtyManglesFrames shows why hosts must run `ssh -T` (no pty):
// the same initialize frame that gets its result through a plain ssh
// channel is mangled by the remote terminal's line discipline under
// `ssh -tt`. ICRNL turns the header's \r\n\r\n into \n\n\n\n, so the body
// the server reads starts two bytes early and ends two bytes short (-32700);
// canonical mode holds the body back until a newline arrives (a frame has
// none, so the server waits); ECHO sends the request back to the host as if
// the server had written it; and stderr joins stdout. It also shows host
// death over a pty: the client's death hangs up the terminal and the server
// exits on SIGHUP.
//
// Checks SPEC §1, §12.
func TestRemote_PtyManglesFrames(t *testing.T) {
	d := startSSHD(t)
	server := plainServer(t)
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"rootUri": "file://" + t.TempDir(), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"dataDir": t.TempDir()}}})
	require.NoError(t, err)
	frame := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)

	// Without a pty: the frame is answered with the initialize result.
	plain := runRaw(t, d.writeWrapper(t, server, wrapper{name: "plain"}))
	plain.write(t, frame)
	plain.waitFor(t, `"scratchDir"`)

	tty := runRaw(t, d.writeWrapper(t, server, wrapper{name: "tty", ssh: []string{"-tt"}}))
	requirePtyMangles(t, tty, frame)

	// Host death over a pty: SIGHUP.
	pid := tty.remotePID(t)
	require.True(t, alive(pid))
	killed := time.Now()
	require.NoError(t, tty.cmd.Process.Kill())
	eventually(t, "the remote server exits when its terminal hangs up", func() (bool, string) {
		return !alive(pid), fmt.Sprintf("pid %d alive", pid)
	})
	t.Logf("pty: remote server gone %v after the ssh client's SIGKILL (SIGHUP)", time.Since(killed).Round(time.Millisecond))
}

// requirePtyMangles sends an initialize frame to a server whose stdin and
// stdout are a terminal and checks what the line discipline does to it.
func requirePtyMangles(t *testing.T, tty *rawSession, frame string) {
	tty.write(t, frame)
	// The terminal echoes the request: the host reads its own frame back.
	tty.waitFor(t, `"method":"initialize"`)
	// A newline releases the held-back line; the server, two bytes short,
	// cannot parse the body.
	tty.write(t, "\n")
	tty.waitFor(t, `"code":-32700`)
	out := tty.out.String()
	require.NotContains(t, out, `"scratchDir"`)
	require.Contains(t, out, remotePIDLine, "with a pty, the wrapper's stderr line arrives on stdout")
	require.Contains(t, out, "\r\r\n", "ONLCR turns each \\r\\n the server writes into \\r\\r\\n")
}

// rawSession is a wrapper process driven with raw bytes, stdout and stderr
// read together.
type rawSession struct {
	cmd    *exec.Cmd
	in     interface{ Write([]byte) (int, error) }
	out    *lockedBuffer
	mapPID func(int) int // the reported pid to this machine's (a container's namespace); nil: the same
}

func runRaw(t *testing.T, wrapperPath string) *rawSession {
	return runRawIn(t, wrapperPath, t.TempDir(), nil)
}

// runRawIn is runRaw in dir, with reported pids mapped by mapPID.
func runRawIn(t *testing.T, wrapperPath, dir string, mapPID func(int) int) *rawSession {
	r := &rawSession{cmd: exec.Command(wrapperPath), out: &lockedBuffer{}, mapPID: mapPID}
	r.cmd.Dir = dir
	r.cmd.Env = append(os.Environ(), reportPIDEnv+"=1")
	in, err := r.cmd.StdinPipe()
	require.NoError(t, err)
	r.in = in
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	require.NoError(t, r.cmd.Start())
	t.Cleanup(func() {
		if p := r.remotePIDNow(); p > 0 && alive(p) {
			_ = exec.Command("kill", "-9", strconv.Itoa(p)).Run()
		}
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
	})
	return r
}

func (r *rawSession) write(t *testing.T, s string) {
	_, err := r.in.Write([]byte(s))
	require.NoError(t, err)
}

func (r *rawSession) waitFor(t *testing.T, needle string) {
	eventually(t, "the host reads "+needle, func() (bool, string) {
		out := r.out.String()
		return strings.Contains(out, needle), strconv.Quote(tail(out, 2000))
	})
}

var remotePIDPattern = regexp.MustCompile(remotePIDLine + `(\d+)`)

func (r *rawSession) remotePIDNow() int {
	m := remotePIDPattern.FindStringSubmatch(r.out.String())
	if m == nil {
		return 0
	}
	p, _ := strconv.Atoi(m[1])
	if r.mapPID != nil {
		p = r.mapPID(p)
	}
	return p
}

func (r *rawSession) remotePID(t *testing.T) int {
	p := r.remotePIDNow()
	require.NotZero(t, p, "no remote pid line")
	return p
}
