package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/methods"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

func TestTextFor(t *testing.T) {
	tests := []struct {
		name, tool, result, want string
	}{
		{"read with notice", "read", `{"content":"[a#0000]\n1:x\n","notice":"Lines 1–1 of 9. Next: offset=2."}`, "[a#0000]\n1:x\nLines 1–1 of 9. Next: offset=2."},
		{"grep content and context", "grep", `{"matches":[{"path":"a","line":1,"text":"b","context":true},{"path":"a","line":2,"text":"hit"}],"notice":"n"}`, "a-1-b\na:2:hit\nn"},
		{"grep files", "grep", `{"files":["a","b"],"count":2}`, "a\nb\n"},
		{"grep counts", "grep", `{"counts":[{"path":"a","count":3}],"count":3}`, "a:3\n"},
		{"grep nothing", "grep", `{"files":[],"count":0}`, "No matches."},
		{"grep nothing with notice", "grep", `{"files":[],"count":0,"notice":"3 files ignored"}`, "3 files ignored"},
		{"grep content mode counts files as a number", "grep", `{"matches":[],"files":0,"count":0}`, "No matches."},
		{"glob", "glob", `{"matches":["x","y"],"count":2,"truncated":true,"notice":"more"}`, "x\ny\nmore"},
		{"glob nothing", "glob", `{"matches":[]}`, "No files matched."},
		{"bash stdout only", "bash", `{"exitCode":0,"stdout":"hi\n","stderr":""}`, "hi\n[exit code 0]"},
		{"bash no newline", "bash", `{"exitCode":1,"stdout":"hi","stderr":"oops"}`, "hi\n[stderr]\noops\n[exit code 1]"},
		{"bash stderr only", "bash", `{"exitCode":2,"stdout":"","stderr":"e\n"}`, "[stderr]\ne\n[exit code 2]"},
		{"bash killed", "bash", `{"exitCode":null,"signal":"SIGKILL","stdout":"","stderr":""}`, "[killed by SIGKILL]"},
		{"edit", "edit", `{"content":"[a#1234]\n2:y\n"}`, "[a#1234]\n2:y\n"},
		{"write", "write", `{"path":"a","tag":"abcd","fileBytes":6,"totalLines":1,"created":true}`, "Created a: 1 line, 6 bytes, tag abcd."},
		{"write replaced", "write", `{"path":"a","tag":"abcd","fileBytes":0,"totalLines":0,"created":false,"notice":"n"}`, "Replaced a: 0 lines, 0 bytes, tag abcd.\nn"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, textFor(decodeResult(t, tc.tool, tc.result)))
		})
	}
}

// decodeResult decodes result as the wire type of tool's result, as its
// method returns it.
func decodeResult(t *testing.T, tool, result string) any {
	var v any
	switch tool {
	case "read":
		v = &wire.ReadResult{}
	case "edit":
		v = &wire.EditResult{}
	case "grep":
		v = &wire.GrepResult{}
	case "glob":
		v = &wire.GlobResult{}
	case "bash":
		v = &wire.BashResult{}
	case "write":
		v = &wire.WriteResult{}
	}
	require.NoError(t, json.Unmarshal([]byte(result), v))
	switch r := v.(type) {
	case *wire.GrepResult:
		return *r
	case *wire.GlobResult:
		return *r
	}
	return v
}

func TestToolsHaveFacesAndValidSchemas(t *testing.T) {
	ts, ms := tools(nil)
	require.Len(t, ts, len(faces), "every tool method has a face and every face a method")
	for i, tool := range ts {
		require.Equal(t, toolName(ms[i].Name), tool.Name)
		var s jsonschema.Schema
		require.NoError(t, json.Unmarshal(tool.OutputSchema.(json.RawMessage), &s), tool.Name)
		rs, err := s.Resolve(nil)
		require.NoError(t, err, tool.Name)
		// Every tool's error object fits its outputSchema.
		e, err := rpc.Errorf(rpc.NotFound, "x").WithData(map[string]any{"path": "p"}).Object()
		require.NoError(t, err)
		b, err := json.Marshal(e)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal(b, &v))
		require.NoError(t, rs.Validate(v), tool.Name)
		// An object that is neither does not.
		require.Error(t, rs.Validate(map[string]any{"code": "x"}), tool.Name)
	}
}

func TestErrorResult(t *testing.T) {
	res := errorResult("bash", rpc.Errorf(rpc.Timeout, "bash: timed out\nafter 1 s").WithData(&wire.BashResult{Stdout: "part\n", Signal: "SIGKILL"}))
	require.True(t, res.IsError)
	require.Equal(t, "TIMEOUT: bash: timed out after 1 s", res.Content[0].(*mcp.TextContent).Text)
	require.Equal(t, "part\n[killed by SIGKILL]", res.Content[1].(*mcp.TextContent).Text)
	require.JSONEq(t, `{"code":-32001,"message":"bash: timed out\nafter 1 s","data":{"code":"TIMEOUT","stdout":"part\n","stderr":"","signal":"SIGKILL","exitCode":null,"truncated":false,`+
		`"stdoutInfo":{"bytes":0,"lines":0,"truncated":false,"omittedBytes":0,"omittedLines":0,"chunks":0},`+
		`"stderrInfo":{"bytes":0,"lines":0,"truncated":false,"omittedBytes":0,"omittedLines":0,"chunks":0},"durationMs":0}}`,
		string(res.StructuredContent.(json.RawMessage)))

	plain := errorResult("read", errors.New("disk on fire"))
	require.Equal(t, "IO_ERROR: disk on fire", plain.Content[0].(*mcp.TextContent).Text)
	require.Len(t, plain.Content, 1)
}

// sink records progress notifications.
type sink struct {
	mu   sync.Mutex
	sent []*mcp.ProgressNotificationParams
}

func (s *sink) send(_ context.Context, p *mcp.ProgressNotificationParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, p)
	return nil
}

func (s *sink) all() []*mcp.ProgressNotificationParams {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), s.sent...)
}

func TestProgressChunksHeartbeatsAndClose(t *testing.T) {
	defer func(d time.Duration) { heartbeatInterval = d }(heartbeatInterval)
	heartbeatInterval = 20 * time.Millisecond
	var s sink
	p := startProgress(context.Background(), "tok", s.send, func() bool { return false })
	call := rpc.NewCall("tools/bash", json.RawMessage(`"tok"`), nil, p.rpcNotify)
	require.NoError(t, call.Progress(json.RawMessage(`"tok"`), map[string]any{"stream": "stdout", "seq": 0, "data": "a\n"}))
	require.Eventually(t, func() bool { return len(s.all()) >= 3 }, time.Minute, time.Millisecond, "heartbeats while silent")
	require.NoError(t, call.Progress(json.RawMessage(`"tok"`), map[string]any{"stream": "stderr", "seq": 0, "data": "b", "skippedBytes": 7}))
	p.close()
	n := len(s.all())
	time.Sleep(3 * heartbeatInterval)
	require.Len(t, s.all(), n, "nothing after close")
	require.NoError(t, p.rpcNotify("$/progress", map[string]any{"value": map[string]any{"stream": "stdout", "data": "late"}}))
	require.Len(t, s.all(), n, "nothing after close")

	got := s.all()
	require.Equal(t, "a\n", got[0].Message)
	require.Equal(t, mcp.Meta{metaStream: "stdout", metaSeq: 0}, got[0].Meta)
	last := got[len(got)-1]
	require.Equal(t, "b", last.Message)
	require.Equal(t, mcp.Meta{metaStream: "stderr", metaSeq: 0, metaSkippedBytes: int64(7)}, last.Meta)
	for i, g := range got {
		require.Equal(t, "tok", g.ProgressToken)
		require.Equal(t, float64(i+1), g.Progress, "one counter, rising by one")
		if i > 0 && i < len(got)-1 {
			require.Equal(t, mcp.Meta{metaHeartbeat: true}, g.Meta)
			require.Empty(t, g.Message)
		}
	}
}

func TestProgressDropsAfterCancel(t *testing.T) {
	var s sink
	cancelled := false
	p := startProgress(context.Background(), 7, s.send, func() bool { return cancelled })
	require.NoError(t, p.rpcNotify("$/progress", map[string]any{"value": map[string]any{"stream": "stdout", "data": "x"}}))
	cancelled = true
	require.NoError(t, p.rpcNotify("$/progress", map[string]any{"value": map[string]any{"stream": "stdout", "seq": 1, "data": "y"}}))
	p.close()
	require.Len(t, s.all(), 1)
}

func request(t testing.TB, id any, method, params string) *jsonrpc.Request {
	r := &jsonrpc.Request{Method: method, Params: json.RawMessage(params)}
	if id != nil {
		var err error
		r.ID, err = jsonrpc.MakeID(id)
		require.NoError(t, err)
	}
	return r
}

func TestCancelFilter(t *testing.T) {
	f := newCancelFilter(nil)
	f.read(request(t, float64(1), "tools/call", `{"name":"bash","_meta":{"progressToken":"a"}}`))
	f.read(request(t, float64(2), "tools/call", `{"name":"read"}`))
	f.read(request(t, "3", "ping", `{}`))
	f.read(request(t, nil, "notifications/cancelled", `{"requestId":1}`))
	f.read(request(t, nil, "notifications/cancelled", `{"requestId":99}`))
	f.read(request(t, nil, "notifications/cancelled", `{"requestId":"3"}`))
	require.True(t, f.cancelledToken(`"a"`))
	require.False(t, f.cancelledToken(""))

	id := func(v any) jsonrpc.ID { i, _ := jsonrpc.MakeID(v); return i }
	require.True(t, f.drop(&jsonrpc.Response{ID: id(float64(1))}), "a cancelled call's response is dropped")
	require.False(t, f.cancelledToken(`"a"`), "and forgotten")
	require.False(t, f.drop(&jsonrpc.Response{ID: id(float64(2))}))
	require.True(t, f.drop(&jsonrpc.Response{ID: id("3")}))
	require.False(t, f.drop(&jsonrpc.Response{ID: id(float64(99))}), "a cancel for an unknown id is ignored")
	require.Empty(t, f.inFlight)
	require.Empty(t, f.cancelled)
	require.Empty(t, f.tokens)
}

// FuzzCancelFilter feeds arbitrary params to the filter: it never panics,
// a response is dropped exactly when a cancel named its request (by the
// go-sdk's reading of the id), and nothing is left behind.
func FuzzCancelFilter(f *testing.F) {
	f.Add(`{"name":"bash","_meta":{"progressToken":"a"}}`, `{"requestId":1}`)
	f.Add(`{"_meta":{"progressToken":1.5}}`, `{"requestId":1.0}`)
	f.Add(`[]`, `{"requestId":null}`)
	f.Add(`{"_meta":null}`, `{"requestId":{"x":1}}`)
	f.Fuzz(func(t *testing.T, callParams, cancelParams string) {
		c := newCancelFilter(nil)
		c.read(request(t, float64(1), "tools/call", callParams))
		c.read(request(t, nil, "notifications/cancelled", cancelParams))
		var p struct {
			RequestID any `json:"requestId"`
		}
		id, _ := jsonrpc.MakeID(float64(1))
		wantDrop := false
		if json.Unmarshal([]byte(cancelParams), &p) == nil {
			// The same id the go-sdk's own cancel resolves (it truncates 1.5 to 1).
			got, err := jsonrpc.MakeID(p.RequestID)
			wantDrop = err == nil && got == id
		}
		require.Equal(t, wantDrop, c.drop(&jsonrpc.Response{ID: id}))
		require.Empty(t, c.inFlight)
		require.Empty(t, c.tokens)
	})
}

// TestToolsSpeakMCP: MCP descriptions name tools and progress in MCP's
// words, never LSP's.
func TestToolsSpeakMCP(t *testing.T) {
	ts, _ := tools(nil)
	for _, tool := range ts {
		for _, lsp := range []string{"$/progress", "workDoneToken", "tools/"} {
			require.NotContains(t, tool.Description, lsp, tool.Name)
		}
	}
}

// TestEveryDialectToolHasAFace checks SPEC §16 on the MCP face: with every
// family listed, each dialect tool is offered under its model name, with a
// face and no outputSchema (its result is the text the model reads).
func TestEveryDialectToolHasAFace(t *testing.T) {
	ts, ms := tools(methods.Toolset{methods.Anthropic, methods.OpenAI, methods.Gemini})
	require.Len(t, ts, len(dialectFaces))
	for i, tool := range ts {
		require.Equal(t, ms[i].ModelName, tool.Name)
		require.Contains(t, dialectFaces, ms[i].Name)
		require.Nil(t, tool.OutputSchema, tool.Name)
	}
}
