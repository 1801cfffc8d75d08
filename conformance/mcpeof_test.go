package conformance

import (
	"encoding/json"
	"fmt"
	"testing"

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
			mark := newMark(t)
			p := mcpPipeStart(t)
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
