package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/internal/checkpoint"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
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

// TestContextResultFitsOutputSchema: both methods answer a
// wire.CheckpointResult, and the outputSchema toolrpc-schemas prints for the
// TypeScript client's types admits it and refuses one without its stats.
func TestContextResultFitsOutputSchema(t *testing.T) {
	s := contextTestSession(t)
	res, e := contextTestCall(t, s, "context/compact",
		`{"checkpointId":"c1","messages":[{"role":"user","content":"hi","x-host":{"kept":true}},{"role":"assistant","toolCalls":[{"id":"a","name":"read"}]},{"role":"tool","toolCallId":"a","content":"ok"}]}`)
	require.Nil(t, e)
	var typed wire.CheckpointResult
	dec := json.NewDecoder(bytes.NewReader(res))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&typed))
	require.Equal(t, "c1", typed.CheckpointID)
	require.Contains(t, string(typed.Messages), `"x-host":{"kept":true}`, "unknown members are kept")
	require.Equal(t, []int{}, typed.Stats.Shrunk)
	for _, name := range []string{"context/compact", "context/load"} {
		m, ok := Lookup(name)
		require.True(t, ok)
		var schema jsonschema.Schema
		require.NoError(t, json.Unmarshal(m.OutputSchema, &schema), "%s", name)
		rs, err := schema.Resolve(nil)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal(res, &v))
		require.NoError(t, rs.Validate(v), "%s: %s", name, res)
		delete(v.(map[string]any), "stats")
		require.Error(t, rs.Validate(v), "%s: a result without stats fits", name)
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
