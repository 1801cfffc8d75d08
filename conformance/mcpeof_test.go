package conformance

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// eofCall is one tools/call of TestMCP_EOFAnswersWhatWasRead and what a
// result of it must say.
type eofCall struct {
	tool string
	args map[string]any
	want string // in the first text block of a result that is not an error
}

// eofCalls returns n calls: a slow bash first, then fast bash, read, glob
// and grep in turn. In the Windows mode (no bash) every call is a read,
// glob or grep.
func eofCalls(n int, mark string) []eofCall {
	var kinds []func(i int) eofCall
	if !winePaths {
		kinds = append(kinds,
			func(i int) eofCall {
				return eofCall{"bash", map[string]any{"command": fmt.Sprintf("sleep 0.3; echo slow-%d", i), "env": map[string]string{"TESTMARK": mark}}, fmt.Sprintf("slow-%d\n", i)}
			},
			func(i int) eofCall {
				return eofCall{"bash", map[string]any{"command": fmt.Sprintf("echo fast-%d", i), "env": map[string]string{"TESTMARK": mark}}, fmt.Sprintf("fast-%d\n", i)}
			})
	}
	kinds = append(kinds,
		func(int) eofCall { return eofCall{"read", map[string]any{"path": "a.txt"}, "1:hi"} },
		func(int) eofCall { return eofCall{"glob", map[string]any{"pattern": "*.txt"}, "a.txt"} },
		func(int) eofCall {
			return eofCall{"grep", map[string]any{"pattern": "hi", "outputMode": "content"}, "a.txt"}
		})
	calls := make([]eofCall, n)
	for i := range calls {
		calls[i] = kinds[i%len(kinds)](i)
	}
	return calls
}

// TestMCP_EOFAnswersWhatWasRead checks SPEC §12 (the MCP face's end of
// input) and §1 (EOF behaves like shutdown + exit): a host that writes
// initialize, notifications/initialized, 1, 3 or 50 pipelined tool calls
// (slow ones included) and a ping, and closes stdin at once, gets every
// answer, initialize's first, each exactly once. A call still running at
// the end is cancelled as shutdown cancels it and answers CANCELLED; every
// other call answers its result. The notifications/initialized read before
// initialize was answered is no error (no `initialized before initialize`
// line), and no process of a call outlives the server. Before the fix the
// server wrote nothing at all and exited 0.
func TestMCP_EOFAnswersWhatWasRead(t *testing.T) {
	for _, n := range []int{1, 3, 50} {
		t.Run(fmt.Sprintf("%d calls", n), func(t *testing.T) {
			if n > 3 {
				// Seen once, in CI on 2026-12-06 (beside the ssh and podman
				// re-runs): the Wine process ended by a signal at exit, with
				// nothing on stderr, after answering; not reproduced since.
				skipOnWine(t, "Wine 8 once ended the process by a signal at exit after 50 pipelined calls; the 1- and 3-call cases run")
			}
			mark := newMark(t)
			p := mcpPipeStart(t, true)
			calls := eofCalls(n, mark)
			frames := []string{mcpInitialize, mcpInitialized}
			for i, c := range calls {
				frames = append(frames, mcpToolCall(t, fmt.Sprint(i+1), c.tool, c.args))
			}
			pingID := fmt.Sprint(n + 1)
			frames = append(frames, `{"jsonrpc":"2.0","id":`+pingID+`,"method":"ping"}`)
			p.write(t, frames...)
			require.Equal(t, 0, p.closeAndDrain(t), "the server exits 0 after answering")

			replies := p.replies(t)
			require.NotEmpty(t, replies, "the server answered nothing")
			require.Equal(t, "0", string(replies[0].ID), "initialize is answered first")
			var init struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			require.NoError(t, json.Unmarshal(replies[0].Result, &init))
			require.Equal(t, "2025-06-18", init.ProtocolVersion)

			seen := map[string]int{}
			cancelled := 0
			for _, r := range replies {
				id := string(r.ID)
				seen[id]++
				require.Nil(t, r.Error, "id %s: a JSON-RPC error", id)
				if id == "0" || id == pingID {
					continue
				}
				var i int
				_, err := fmt.Sscan(id, &i)
				require.NoError(t, err, "a response to an id never sent: %s", id)
				require.True(t, i >= 1 && i <= n, "a response to an id never sent: %s", id)
				c := calls[i-1]
				var res mcpToolResult
				require.NoError(t, json.Unmarshal(r.Result, &res))
				require.NotEmpty(t, res.Content, "id %s: no content", id)
				if res.IsError {
					require.Equal(t, "CANCELLED", res.errorKind(), "id %s (%s): the only error an answer after the end may carry: %s", id, c.tool, res.Content[0].Text)
					cancelled++
					continue
				}
				require.Contains(t, res.Content[0].Text, c.want, "id %s (%s)", id, c.tool)
			}
			for i := 0; i <= n+1; i++ {
				require.Equal(t, 1, seen[fmt.Sprint(i)], "id %d is answered exactly once", i)
			}
			require.Len(t, seen, n+2, "no response to an id never sent")
			t.Logf("%d calls: %d answered their result, %d CANCELLED", n, n-cancelled, cancelled)
			require.NotContains(t, p.stderr.String(), "level=ERROR", "no error is logged (`initialized before initialize`)")
			if !winePaths {
				require.Empty(t, markHolders(mark), "no process of a call outlives the server")
			}
		})
	}
}

// TestMCP_EOFHostStopsReading checks SPEC §1 (host death ends the process
// promptly even if the host stopped reading stdout) on the MCP face: a
// host writes 8 tools/list requests, whose answers (about 36 KB each, never
// cancelled) fill the pipe several times over, closes stdin and never
// reads; the answers it left unread cannot keep the server alive, as each
// blocked write may block for at most limits.EndingWriteGrace. Before the
// MCP face's stdout took write deadlines the server never exited.
func TestMCP_EOFHostStopsReading(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(bin, "mcp", "--root", root, "--data-dir", t.TempDir())
	cmd.Dir = root
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe() // held, never read
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer out.Close()
	frames := []string{mcpInitialize, mcpInitialized}
	for i := range 8 {
		frames = append(frames, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+1))
	}
	_, err = in.Write([]byte(strings.Join(frames, "\n") + "\n"))
	require.NoError(t, err)
	require.NoError(t, in.Close())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(replyWait):
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("the server still runs with its answers unread (stderr: %s)", tail(stderr.String(), 2000))
	}
}

// TestMCP_EOFAnswersACallWaitingOnTheClient checks SPEC §12 (end of input,
// roots): a client that offers roots (no --root) writes initialize,
// notifications/initialized and a tool call, and closes stdin. The call
// asks the client for its roots (roots/list, a 2025-06-18 client), which
// can no longer be answered: the request fails and the call answers that
// error, instead of waiting for ever.
func TestMCP_EOFAnswersACallWaitingOnTheClient(t *testing.T) {
	p := mcpPipeStart(t, false)
	p.write(t, strings.Replace(mcpInitialize, `"capabilities":{}`, `"capabilities":{"roots":{}}`, 1), mcpInitialized,
		mcpToolCall(t, "1", "read", map[string]any{"path": "a.txt"}))
	require.Equal(t, 0, p.closeAndDrain(t))
	var asked bool
	for _, l := range p.lines() {
		var m struct {
			Method string `json:"method"`
		}
		require.NoError(t, json.Unmarshal(l, &m))
		asked = asked || m.Method == "roots/list"
	}
	require.True(t, asked, "the server asks for the client's roots")
	r := p.reply(t, "1")
	require.NotNil(t, r.Error, "the call cannot have its roots: %s", r.Result)
	require.Contains(t, r.Error.Message, "roots/list")
	require.NotContains(t, p.stderr.String(), "level=ERROR")
}
