package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/internal/checkpoint"
	"github.com/toolrpc/toolrpc/internal/rpc"
)

func contextTestSession(t testing.TB) *Session {
	t.Helper()
	s, err := NewSession(Config{Root: t.TempDir(), DataDir: t.TempDir(), SessionID: "context-test"}, &protocol.InitializeParams{})
	require.NoError(t, err)
	return s
}

func contextTestCall(t testing.TB, s *Session, method, params string) (json.RawMessage, *rpc.Error) {
	t.Helper()
	call := contextCompact
	if method == "context/load" {
		call = contextLoad
	}
	res, err := call(context.Background(), s, rpc.NewCall(method, json.RawMessage(`1`), json.RawMessage(params), nil))
	if err != nil {
		return nil, rpc.AsError(err)
	}
	return res.(json.RawMessage), nil
}

func TestContextSchemasAreJSON(t *testing.T) {
	for _, name := range []string{"context/compact", "context/load"} {
		t.Run(name, func(t *testing.T) {
			m, ok := Lookup(name)
			require.True(t, ok)
			require.False(t, m.Tool, "context methods are not agent tools")
			require.True(t, json.Valid(m.InputSchema), "%s", m.InputSchema)
		})
	}
}

func TestContextCompactThenLoad(t *testing.T) {
	s := contextTestSession(t)
	res, e := contextTestCall(t, s, "context/compact", `{"checkpointId":"c1","messages":[{"role":"user","content":"hi"}]}`)
	require.Nil(t, e)
	onDisk, err := os.ReadFile(filepath.Join(s.DataDir, "checkpoints", s.ID, "c1.json"))
	require.NoError(t, err)
	require.Equal(t, string(onDisk), string(res))
	loaded, e := contextTestCall(t, s, "context/load", `{"checkpointId":"c1"}`)
	require.Nil(t, e)
	require.Equal(t, string(res), string(loaded))

	_, e = contextTestCall(t, s, "context/load", `{"checkpointId":"c2"}`)
	require.Equal(t, rpc.NotFound, e.Kind)
	_, e = contextTestCall(t, s, "context/compact", `{"checkpointId":"c1","messages":[]}`)
	require.Equal(t, rpc.InvalidArgument, e.Kind)
}

func TestContextErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		wantKind string
	}{
		{"transcript", &checkpoint.TranscriptError{Index: 3, Reason: "x"}, rpc.InvalidArgument},
		{"invariant wrapping a transcript error", fmt.Errorf("%w: %w", checkpoint.ErrInvariant, &checkpoint.TranscriptError{Index: 1}), rpc.IOError},
		{"budget", fmt.Errorf("budgets.userTokens 1 is outside"), rpc.InvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.wantKind, rpc.AsError(transcriptError(tc.err)).Kind)
		})
	}
}

// TestCheckpointStoreSetupIsIOError: a store that cannot be set up is the
// server's failure (IO_ERROR), not the caller's bad argument.
func TestCheckpointStoreSetupIsIOError(t *testing.T) {
	s := contextTestSession(t)
	s.ID = ".." // NewSession refuses it; the store must refuse it too
	_, e := contextTestCall(t, s, "context/load", `{"checkpointId":"c1"}`)
	require.NotNil(t, e)
	require.Equal(t, rpc.IOError, e.Kind, e.Message)
}
