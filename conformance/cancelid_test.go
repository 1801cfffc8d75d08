package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// idSpelling is a request id and another spelling of the same JSON value
// (or, for a control, of a different value) used by its cancel.
type idSpelling struct {
	name       string
	id, cancel string // raw JSON
}

// sameIDs are ids whose cancel is spelled differently but is the same JSON
// value: strings however escaped, numbers however written.
var sameIDs = []idSpelling{
	{"raw é, cancelled as \\u00e9", `"é"`, `"\u00e9"`},
	{"escaped ü, cancelled raw", `"\u00fc"`, `"ü"`},
	{"a surrogate pair, cancelled as the raw character", `"\ud83d\ude00"`, `"😀"`},
	{"an escaped solidus", `"a/b"`, `"a\/b"`},
	{"escaped ASCII", `"\u0041\u0042"`, `"AB"`},
	{"7 cancelled as 7.0", `7`, `7.0`},
	{"1.5e1 cancelled as 15", `1.5e1`, `15`},
}

// otherIDs are controls: the cancel names a different value, so the
// request must run to its end.
var otherIDs = []idSpelling{
	{"e and a combining acute is not é", `"e\u0301"`, `"\u00e9"`},
	{"the string 8 is not the number 8", `"8"`, `8`},
}

// TestCancel_IdSpelledWithEscapes checks SPEC §1: a `$/cancelRequest` (LSP
// face) or `notifications/cancelled` (MCP face, whose ids are strings and
// integers) compares ids as JSON values — "é" and "\u00e9" are one id, so
// are 7 and 7.0 — and a cancel naming a different value cancels nothing.
// Each cancelled call is a bash `sleep 30` with a 10 s timeout: before the
// fix the LSP face answered TIMEOUT for the escaped strings.
func TestCancel_IdSpelledWithEscapes(t *testing.T) {
	t.Run("lsp", func(t *testing.T) {
		s := start(t)
		for i, c := range append(append([]idSpelling(nil), sameIDs...), otherIDs...) {
			s.sendWithID(t, json.RawMessage(c.id), "tools/bash", map[string]any{"command": bashUntilGo(i), "timeout": 10})
		}
		awaitStarted(t, s.Root, len(sameIDs)+len(otherIDs))
		for _, c := range append(append([]idSpelling(nil), sameIDs...), otherIDs...) {
			s.writeRaw(rawFrame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + c.cancel + `}}`))
		}
		for _, c := range sameIDs {
			f := s.wait(t, json.RawMessage(c.id))
			require.NotNil(t, f.Error, "%s: the call ran to its end", c.name)
			require.Equal(t, "CANCELLED", f.Error.Kind, "%s: %s", c.name, f.Error.Message)
			require.Equal(t, c.id, string(f.ID), "%s: the id is echoed as it was sent", c.name)
		}
		s.call(t, "tools/list", nil) // every cancel before it has been read
		require.NoError(t, os.WriteFile(filepath.Join(s.Root, "go"), nil, 0o644))
		for _, c := range otherIDs {
			f := s.wait(t, json.RawMessage(c.id))
			require.Nil(t, f.Error, "%s: a cancel of another id cancelled it", c.name)
		}
	})
	t.Run("mcp", func(t *testing.T) {
		// MCP ids are strings and integers: 1.5e1 is no MCP id.
		same := sameIDs[:6]
		all := append(append([]idSpelling(nil), same...), otherIDs...)
		mark := newMark(t)
		p := mcpPipeStart(t, true)
		frames := []string{mcpInitialize, mcpInitialized}
		for i, c := range all {
			frames = append(frames, mcpToolCall(t, c.id, "bash", map[string]any{"command": bashUntilGo(i), "timeout": 10,
				"env": map[string]string{"TESTMARK": fmt.Sprintf("%s-%d", mark, i)}}))
		}
		p.write(t, frames...)
		awaitStarted(t, p.Root, len(all))
		for _, c := range all {
			p.write(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+c.cancel+`}}`)
		}
		p.write(t, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
		p.reply(t, `"after"`) // every cancel before it has been read
		for i, c := range same {
			require.Eventually(t, func() bool { return len(markHolders(fmt.Sprintf("%s-%d", mark, i))) == 0 }, replyWait, 5*time.Millisecond,
				"%s: the cancelled call's command is killed", c.name)
		}
		for i, c := range otherIDs {
			require.NotEmpty(t, markHolders(fmt.Sprintf("%s-%d", mark, len(same)+i)), "%s: a cancel of another id killed it", c.name)
		}
		require.NoError(t, os.WriteFile(filepath.Join(p.Root, "go"), nil, 0o644))
		for _, c := range otherIDs {
			var res mcpToolResult
			require.NoError(t, json.Unmarshal(p.reply(t, c.id).Result, &res))
			require.False(t, res.IsError, "%s: a cancel of another id cancelled it: %+v", c.name, res)
		}
		for _, r := range p.replies(t) {
			for _, c := range same {
				require.False(t, sameJSON(json.RawMessage(c.id), r.ID), "%s: a cancelled request is not answered (MCP)", c.name)
			}
		}
	})
}

// bashUntilGo is a command that marks itself started, then waits for the
// file go in the root.
func bashUntilGo(i int) string {
	return fmt.Sprintf("touch started-%d; while [ ! -e go ]; do sleep 0.02; done; echo ok", i)
}

// awaitStarted waits until n commands of bashUntilGo have started in root.
func awaitStarted(t *testing.T, root string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		for i := range n {
			if _, err := os.Stat(filepath.Join(root, fmt.Sprintf("started-%d", i))); err != nil {
				return false
			}
		}
		return true
	}, replyWait, 5*time.Millisecond, "the commands start")
}
