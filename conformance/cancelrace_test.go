package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// frameBytes is one LSP frame holding msg.
func frameBytes(t testing.TB, msg any) []byte {
	t.Helper()
	b, err := json.Marshal(msg)
	require.NoError(t, err)
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(b))), b...)
}

// TestCancel_ArrivesWithItsRequest (issue 16 item 2, SPEC §1): each
// tools/bash or tools/write request is written together with its
// $/cancelRequest, in one
// write, to a server limited to one P, so the call's goroutine and the read
// loop race. No command may start and no file or directory may be created; every call
// answers -32800. Before the fix, about half of the 300 commands ran.
func TestCancel_ArrivesWithItsRequest(t *testing.T) {
	s := start(t, withEnv("GOMAXPROCS=1"))
	const n = 300
	ids := make([]json.RawMessage, n)
	for i := range n {
		ids[i] = json.RawMessage(fmt.Sprint(1000 + i))
		method, params := "tools/bash", map[string]any{"command": fmt.Sprintf("echo x > ran-%d", i)}
		if i%3 == 2 {
			method, params = "tools/write", map[string]any{"path": fmt.Sprintf("dir-%d/wrote", i), "content": "x\n"}
		}
		req := frameBytes(t, map[string]any{"jsonrpc": "2.0", "id": ids[i], "method": method, "params": params})
		cancel := frameBytes(t, map[string]any{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": map[string]any{"id": ids[i]}})
		s.writeRaw(append(req, cancel...))
	}
	for i, id := range ids {
		f := s.wait(t, id)
		require.NotNil(t, f.Error, "call %d ran to completion", i)
		require.Equal(t, int64(-32800), f.Error.Code, "call %d: %v", i, f.Error)
	}
	ents, err := os.ReadDir(s.Root)
	require.NoError(t, err)
	var ran []string
	for _, e := range ents {
		ran = append(ran, e.Name())
	}
	require.Empty(t, ran, "%d of %d cancelled commands started", len(ran), n)
}
