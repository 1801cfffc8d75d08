package methods

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/internal/capture"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

func bashSession(t *testing.T) *Session {
	t.Helper()
	s, err := NewSession(Config{Root: t.TempDir(), DataDir: t.TempDir(), SessionID: "bash-test"}, &protocol.InitializeParams{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Scratch.Remove() })
	return s
}

// recorder collects the notifications of one call.
type recorder struct {
	mu     sync.Mutex
	tokens []string
	chunks []capture.Chunk
}

func (r *recorder) notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	var p struct {
		Token json.RawMessage `json:"token"`
		Value capture.Chunk   `json:"value"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tokens = append(r.tokens, string(p.Token))
	r.chunks = append(r.chunks, p.Value)
	return nil
}

func TestBashDecode(t *testing.T) {
	s := bashSession(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.roots.First(), "file"), nil, 0o644))
	tests := []struct {
		name     string
		params   string
		wantKind string
		wantTok  string
	}{
		{"minimal", `{"command":"true"}`, "", `7`},
		{"timeout 1.5", `{"command":"true","timeout":1.5}`, "", `7`},
		{"timeout max", `{"command":"true","timeout":21600}`, "", `7`},
		{"timeout 0", `{"command":"true","timeout":0}`, rpc.InvalidArgument, ""},
		{"timeout 0.5", `{"command":"true","timeout":0.5}`, rpc.InvalidArgument, ""},
		{"timeout 21601", `{"command":"true","timeout":21601}`, rpc.InvalidArgument, ""},
		{"timeout string", `{"command":"true","timeout":"60"}`, rpc.InvalidArgument, ""},
		{"string token", `{"command":"true","workDoneToken":"t"}`, "", `"t"`},
		{"number token", `{"command":"true","workDoneToken":12}`, "", `12`},
		{"object token", `{"command":"true","workDoneToken":{}}`, rpc.InvalidArgument, ""},
		{"fraction token", `{"command":"true","workDoneToken":1.5}`, rpc.InvalidArgument, ""},
		{"no command", `{}`, rpc.InvalidArgument, ""},
		{"env name with =", `{"command":"true","env":{"A=B":"c"}}`, rpc.InvalidArgument, ""},
		{"cwd outside", `{"command":"true","cwd":"/"}`, rpc.PermissionDenied, ""},
		{"cwd missing", `{"command":"true","cwd":"nope"}`, rpc.NotFound, ""},
		{"cwd is a file", `{"command":"true","cwd":"file"}`, rpc.InvalidArgument, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := bashDecode(s, rpc.NewCall("tools/bash", json.RawMessage(`7`), json.RawMessage(tc.params), nil))
			if tc.wantKind != "" {
				var e *rpc.Error
				require.True(t, errors.As(err, &e), "%v", err)
				require.Equal(t, tc.wantKind, e.Kind)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantTok, string(r.token))
		})
	}
}

// TestBashCallShapesResult checks what the adapter adds to the shell engine:
// the request id as the default progress token, and the SPEC §6 shape.
func TestBashCallShapesResult(t *testing.T) {
	s := bashSession(t)
	var rec recorder
	call := rpc.NewCall("tools/bash", json.RawMessage(`"id-1"`), json.RawMessage(`{"command":"seq 1 5000; echo e >&2; exit 4"}`), rec.notify)
	got, err := bashCall(context.Background(), s, call)
	require.NoError(t, err)
	res := got.(*wire.BashResult)
	require.Equal(t, 4, *res.ExitCode)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, tok := range rec.tokens {
		require.Equal(t, `"id-1"`, tok, "the request id is the default token")
	}
	require.Equal(t, len(rec.chunks), res.StdoutInfo.Chunks+res.StderrInfo.Chunks)
	require.Equal(t, "e\n", res.Stderr)
	require.Equal(t, 5000, res.StdoutInfo.Lines)
	require.True(t, res.Truncated)
	require.True(t, strings.HasPrefix(filepath.Base(res.StdoutInfo.Spill), "bash-stdout-"), res.StdoutInfo.Spill)
}

func TestBashCallCancelled(t *testing.T) {
	s := bashSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	var rec recorder
	started := make(chan struct{})
	var once sync.Once
	call := rpc.NewCall("tools/bash", json.RawMessage(`1`), json.RawMessage(`{"command":"echo go; sleep 1000"}`),
		func(m string, p any) error {
			once.Do(func() { close(started) })
			return rec.notify(m, p)
		})
	go func() { <-started; cancel() }()
	_, err := bashCall(ctx, s, call)
	var e *rpc.Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, rpc.Cancelled, e.Kind)
	data := e.Data.(*wire.BashResult)
	require.Equal(t, "go\n", data.Stdout)
	require.Equal(t, "SIGKILL", data.Signal)
	require.Nil(t, data.ExitCode)
}

func TestBashDescriptionNamesLimits(t *testing.T) {
	d := mustLookup("tools/bash").Describe(LSP)
	for _, want := range []string{"default 60, allowed 1..21600", "4000 lines / 96KB", "512KB / 200000 lines"} {
		require.Contains(t, d, want)
	}
}
