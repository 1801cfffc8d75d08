package methods

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/rpc"
)

// TestInitializeOnce checks SPEC §1: initialize may only be sent once. A
// Toolbox refuses a second Initialize as the server does, and the first
// session stays whole: no second session replaces it half closed.
func TestInitializeOnce(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	tb := NewToolbox(Config{Root: root, DataDir: data})
	init := func(id string) error {
		_, err := tb.Initialize(context.Background(), &protocol.InitializeParams{InitializationOptions: map[string]any{"sessionId": id}})
		return err
	}
	require.NoError(t, init("one"))
	tb.mu.Lock()
	first := tb.session
	tb.mu.Unlock()
	spilled, err := first.Scratch.Write("bash-stdout", []byte("x\n"))
	require.NoError(t, err)

	var e *rpc.Error
	require.ErrorAs(t, init("two"), &e)
	require.EqualValues(t, rpc.CodeInvalidRequest, e.Code)
	tb.mu.Lock()
	require.Same(t, first, tb.session, "the first session stays")
	tb.mu.Unlock()
	require.FileExists(t, spilled)
	require.NotNil(t, first.index.Manager(first.roots.First()), "its index is open")
	tb.Shutdown()
}
