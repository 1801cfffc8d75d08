package methods

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// TestSecondInitializeClosesTheFirstSession: a second initialize closes what
// CloseSession closes of the session it replaces — its content index, file
// tables and scratch dir — but keeps a scratch dir the new session shares.
func TestSecondInitializeClosesTheFirstSession(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	tb := NewToolbox(Config{Root: root, DataDir: data})
	init := func(id string) *Session {
		_, err := tb.Initialize(context.Background(), &protocol.InitializeParams{InitializationOptions: map[string]any{"sessionId": id}})
		require.NoError(t, err)
		tb.mu.Lock()
		defer tb.mu.Unlock()
		return tb.session
	}
	first := init("one")
	spilled, err := first.Scratch.Write("bash-stdout", []byte("x\n"))
	require.NoError(t, err)
	require.NotNil(t, first.Index.Manager(first.Roots.First()))

	same := init("one")
	require.FileExists(t, spilled, "the new session holds the shared scratch dir")
	require.Nil(t, first.Index.Manager(first.Roots.First()), "the replaced session's index is closed")

	init("two")
	_, err = os.Stat(same.Scratch.Path())
	require.ErrorIs(t, err, os.ErrNotExist, "the replaced session's own scratch dir is removed")
	require.Nil(t, same.Index.Manager(same.Roots.First()))
	tb.Shutdown()
}
