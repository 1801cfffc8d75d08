package conformance

import (
	"bufio"
	"encoding/json"
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

// endingBackstop bounds the wait for an ending server to exit, so a server
// blocked on its unread stdout fails the test instead of hanging it; it is
// not a speed assertion (the exit time is logged).
var endingBackstop = 20 * time.Second

// TestEnding_HostStopsReading (issue 16 item 3, SPEC §1): a streaming call
// runs, the host stops reading stdout and stderr (both pipes stay open and
// full), then the session ends — host death (processId), stdin EOF or
// SIGTERM. The server must still kill the call's tree and exit, with the
// status of that ending. Before the fix it stayed blocked in a pipe write
// until the host closed the read end.
func TestEnding_HostStopsReading(t *testing.T) {
	linuxOnly(t, "counts the bytes waiting in a pipe (TIOCINQ)")
	endings := []struct {
		name     string
		wantCode int
		end      func(t *testing.T, server *exec.Cmd, stdin io.Closer, host int)
	}{
		// The host is a shell between the test and the server (hostLauncher):
		// only an ancestor's processId is honoured.
		{"processId dies", 1, func(t *testing.T, _ *exec.Cmd, _ io.Closer, host int) {
			require.NoError(t, signalPid(host, syscall.SIGKILL))
		}},
		{"stdin EOF", 0, func(t *testing.T, _ *exec.Cmd, stdin io.Closer, _ int) {
			require.NoError(t, stdin.Close())
		}},
		{"SIGTERM", 1, func(t *testing.T, server *exec.Cmd, _ io.Closer, _ int) {
			require.NoError(t, server.Process.Signal(syscall.SIGTERM))
		}},
	}
	for _, tc := range endings {
		t.Run(tc.name, func(t *testing.T) {
			viaHost := tc.name == "processId dies"
			mark := loadMark(t)
			kv := strings.SplitN(mark, "=", 2)

			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			errR, errW, err := os.Pipe()
			require.NoError(t, err)
			t.Cleanup(func() { outR.Close(); errR.Close() })
			server := exec.Command(bin)
			if viaHost {
				server = exec.Command(os.Args[0], bin)
				server.Env = append(os.Environ(), launcherEnv+"=1")
			}
			server.Dir = t.TempDir()
			server.Stdout, server.Stderr = outW, errW
			stdin, err := server.StdinPipe()
			require.NoError(t, err)
			require.NoError(t, server.Start())
			outW.Close()
			errW.Close()
			exited := make(chan struct{})
			var waitErr error
			go func() { waitErr = server.Wait(); close(exited) }()
			t.Cleanup(func() {
				select {
				case <-exited:
				default:
					_ = server.Process.Kill()
					<-exited
				}
			})

			host := 0
			if viaHost { // hostLauncher's first line; nothing else is read
				line, err := bufio.NewReader(io.LimitReader(errR, 64)).ReadString('\n')
				require.NoError(t, err)
				host, err = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, hostPIDLine)))
				require.NoError(t, err, line)
			}
			write := func(msg map[string]any) {
				b, err := json.Marshal(msg)
				require.NoError(t, err)
				_, err = fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(b), b)
				require.NoError(t, err)
			}
			write(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
				"processId": host, "rootUri": "file://" + server.Dir, "capabilities": map[string]any{},
				"initializationOptions": map[string]any{"dataDir": t.TempDir(), "sessionId": "ending"},
			}})
			write(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/bash", "params": map[string]any{
				"command": hostDeathCommand, "env": map[string]string{kv[0]: kv[1]}, "timeout": 600,
			}})
			eventually(t, "the call's processes started and stdout is full", func() (bool, string) {
				n := unreadBytes(outR)
				return len(marked(mark)) >= 3 && n >= 48<<10, fmt.Sprintf("%d bytes unread", n)
			})

			began := time.Now()
			tc.end(t, server, stdin, host)
			select {
			case <-exited:
			case <-time.After(endingBackstop):
				t.Fatalf("server still running %v after %s while the host holds stdout unread", endingBackstop, tc.name)
			}
			took := time.Since(began)
			code := 0
			if ee, ok := waitErr.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, waitErr)
			}
			require.Equal(t, tc.wantCode, code)
			eventually(t, "no process of the call survives", func() (bool, string) {
				m := marked(mark)
				return len(m) == 0, fmt.Sprint(m)
			})
			t.Logf("%s: server exited (status %d) %v later, stdout never read", tc.name, code, took.Round(time.Millisecond))
		})
	}
}
