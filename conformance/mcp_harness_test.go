package conformance

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// The MCP face (`toolrpc mcp`, SPEC §12) driven by the official go-sdk client
// over the real binary's stdio (mcp.CommandTransport).

// mcpOptions configure mcpStart.
type mcpOptions struct {
	roots       []string // --root flags
	clientRoots []string // roots the client offers (file:// of each)
	noRootsCap  bool     // the client offers no roots capability
	dir         string   // working directory (default: a fresh temp dir)
	env         []string
	args        []string // more flags after mcp's own
}

// mcpServer is a running `toolrpc mcp` with a go-sdk client session.
type mcpServer struct {
	Dir, DataDir string
	cs           *mcp.ClientSession
	cmd          *exec.Cmd
	rec          *recorder
	stderr       *lockedBuffer
	tools        map[string]*mcp.Tool
}

// mcpStart spawns `toolrpc mcp --data-dir D [--root R ...]`, connects and
// lists the tools. Cleanup closes the session (stdin EOF) and waits.
func mcpStart(t testing.TB, o mcpOptions) *mcpServer {
	t.Helper()
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	s := &mcpServer{Dir: o.dir, DataDir: t.TempDir(), stderr: &lockedBuffer{}}
	args := []string{"mcp", "--data-dir", s.DataDir}
	for _, r := range o.roots {
		args = append(args, "--root", r)
	}
	args = append(args, o.args...)
	env := o.env
	if winePaths {
		args, env = wineEnv(args), wineEnv(env)
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Dir = o.dir
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Stderr = s.stderr
	s.rec = &recorder{inner: &mcp.CommandTransport{Command: s.cmd, TerminateDuration: replyWait}, wine: winePaths}
	copts := &mcp.ClientOptions{}
	if o.noRootsCap {
		copts.Capabilities = &mcp.ClientCapabilities{}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "1"}, copts)
	for _, r := range o.clientRoots {
		client.AddRoots(&mcp.Root{URI: "file://" + r, Name: r})
	}
	ctx, cancel := context.WithTimeout(context.Background(), replyWait)
	defer cancel()
	cs, err := client.Connect(ctx, s.rec, nil)
	require.NoError(t, err)
	s.cs = cs
	t.Cleanup(func() {
		_ = s.cs.Close()
		s.rec.schemas.report(t)
		if strings.Contains(s.stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("the server reported a data race:\n%s", tail(s.stderr.String(), 8000))
		}
		if t.Failed() {
			t.Logf("server stderr (tail):\n%s", tail(s.stderr.String(), 4000))
		}
	})
	lt, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	s.tools = map[string]*mcp.Tool{}
	for _, tool := range lt.Tools {
		s.tools[tool.Name] = tool
	}
	return s
}

// callTool calls tool and checks the result's shape: structuredContent
// fits the tool's outputSchema and the first content block is text. It
// returns the result and its structuredContent as JSON.
func (s *mcpServer) callTool(t testing.TB, tool string, args map[string]any, progressToken any) (*mcp.CallToolResult, json.RawMessage) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), replyWait)
	defer cancel()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	if progressToken != nil {
		p.SetProgressToken(progressToken)
	}
	res, err := s.cs.CallTool(ctx, p)
	require.NoError(t, err)
	require.NotEmpty(t, res.Content)
	_, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "the first content block is text")
	sc, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	requireFitsSchema(t, s.tools[tool].OutputSchema, sc)
	return res, sc
}

// ok calls tool, requires a successful result and returns it.
func (s *mcpServer) ok(t testing.TB, tool string, args map[string]any) (*mcp.CallToolResult, json.RawMessage) {
	t.Helper()
	res, sc := s.callTool(t, tool, args, nil)
	require.False(t, res.IsError, "%s: %s", tool, text(res))
	return res, sc
}

// toolErr calls tool, requires an isError result and returns its
// structuredContent as the LSP-mode error object.
func (s *mcpServer) toolErr(t testing.TB, tool string, args map[string]any) (*mcp.CallToolResult, *rpcError) {
	t.Helper()
	res, sc := s.callTool(t, tool, args, nil)
	require.True(t, res.IsError, "%s: want an error, got %s", tool, text(res))
	var e rpcError
	require.NoError(t, json.Unmarshal(sc, &e))
	var d struct {
		Code string `json:"code"`
	}
	require.NoError(t, json.Unmarshal(e.Data, &d))
	e.Kind = d.Code
	require.NotContains(t, text(res), "\n", "an error's text is one line")
	require.Contains(t, text(res), e.Kind, "an error's text names its data.code")
	return res, &e
}

// text is the first text block of res.
func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// requireFitsSchema validates instance against schema (a tool's outputSchema).
func requireFitsSchema(t testing.TB, schema any, instance json.RawMessage) {
	t.Helper()
	require.NotNil(t, schema, "the tool has an outputSchema")
	b, err := json.Marshal(schema)
	require.NoError(t, err)
	var js jsonschema.Schema
	require.NoError(t, json.Unmarshal(b, &js))
	rs, err := js.Resolve(nil)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(instance, &v))
	require.NoError(t, rs.Validate(v), "structuredContent %s fits the outputSchema", tail(string(instance), 2000))
}

// recorded is one message on the wire, in order; out is client -> server.
type recorded struct {
	out bool
	msg jsonrpc.Message
}

// recorder is a transport that records every message in wire order.
type recorder struct {
	inner   mcp.Transport
	mu      sync.Mutex
	log     []recorded
	calls   map[jsonrpc.ID]string // tools/call request id -> tool method, for the schema check
	schemas schemaCheck
	wine    bool // Windows mode: paths mapped (winepath_test.go)
}

func (r *recorder) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, r: r}, nil
}

func (r *recorder) add(out bool, msg jsonrpc.Message) {
	r.mu.Lock()
	r.log = append(r.log, recorded{out, msg})
	r.mu.Unlock()
}

func (r *recorder) messages() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.log...)
}

type recordingConn struct {
	mcp.Connection
	r *recorder
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil && c.r.wine {
		wineMap(msg, fromWine)
	}
	if err == nil {
		c.r.add(false, msg)
		if res, ok := msg.(*jsonrpc.Response); ok {
			c.r.checkResult(res)
		}
	}
	return msg, err
}

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.r.add(true, msg)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" && req.ID.IsValid() {
		var p struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			c.r.mu.Lock()
			if c.r.calls == nil {
				c.r.calls = map[jsonrpc.ID]string{}
			}
			c.r.calls[req.ID] = "tools/" + p.Name
			c.r.mu.Unlock()
		}
	}
	if c.r.wine {
		wineMap(msg, toWine)
	}
	return c.Connection.Write(ctx, msg)
}

// wineMap maps the paths in msg's params or result with f (Windows mode).
func wineMap(msg jsonrpc.Message, f func([]byte) []byte) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		m.Params = f(m.Params)
	case *jsonrpc.Response:
		m.Result = f(m.Result)
	}
}

// checkResult holds a tools/call result's structuredContent to its tool's
// outputSchema.
func (r *recorder) checkResult(res *jsonrpc.Response) {
	r.mu.Lock()
	method := r.calls[res.ID]
	r.mu.Unlock()
	var m struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if method == "" || res.Result == nil || json.Unmarshal(res.Result, &m) != nil {
		return
	}
	r.schemas.check(method, m.StructuredContent)
}

// mcpProgress is one notifications/progress as the wire carried it.
type mcpProgress struct {
	Meta          map[string]any `json:"_meta"`
	ProgressToken any            `json:"progressToken"`
	Message       string         `json:"message"`
	Progress      float64        `json:"progress"`
}

// callTrace is what the wire carried for one tools/call with a progress token.
type callTrace struct {
	id        jsonrpc.ID
	progress  []mcpProgress
	replied   bool
	afterBye  int // progress notifications after the response, or after the cancel was surely read
	inFlight  int // progress notifications between sending the cancel and knowing the server read it
	cancelled bool
}

// trace finds the last tools/call whose _meta.progressToken is token (a
// call answered with an input request, such as the first one asking for the
// client's roots, is retried as a new request) and collects its
// notifications and reply in wire order.
//
// A cancel is surely read once the reply to a request sent after it arrives:
// the server reads its input in order. Progress the server wrote before it
// read the cancel may still reach the client after the cancel was sent (a
// pipe, or ssh, holds it); that is inFlight, not afterBye.
func (s *mcpServer) trace(t testing.TB, token string) callTrace {
	t.Helper()
	var tr callTrace
	found, done := false, false
	sentAfterCancel := map[jsonrpc.ID]bool{}
	for _, m := range s.rec.messages() {
		req, isReq := m.msg.(*jsonrpc.Request)
		switch {
		case m.out && isReq && tr.cancelled && !done && req.ID.IsValid():
			sentAfterCancel[req.ID] = true
		case m.out && isReq && req.Method == "tools/call":
			var p struct {
				Meta struct {
					ProgressToken any `json:"progressToken"`
				} `json:"_meta"`
			}
			require.NoError(t, json.Unmarshal(req.Params, &p))
			if p.Meta.ProgressToken == token {
				tr, found, done = callTrace{id: req.ID}, true, false
			}
		case m.out && isReq && req.Method == "notifications/cancelled" && found:
			var p struct {
				RequestID any `json:"requestId"`
			}
			require.NoError(t, json.Unmarshal(req.Params, &p))
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id == tr.id {
				tr.cancelled = true
			}
		case !m.out && isReq && req.Method == "notifications/progress" && found:
			var p mcpProgress
			require.NoError(t, json.Unmarshal(req.Params, &p))
			if p.ProgressToken != token {
				continue
			}
			switch {
			case done:
				tr.afterBye++
			case tr.cancelled:
				tr.inFlight++
			default:
				tr.progress = append(tr.progress, p)
			}
		case !m.out && !isReq && found:
			if resp := m.msg.(*jsonrpc.Response); resp.ID == tr.id {
				tr.replied, done = true, true
			} else if sentAfterCancel[resp.ID] {
				done = true
			}
		}
	}
	require.True(t, found, "no tools/call with progress token %s was sent", token)
	return tr
}

// ping makes one round trip, so everything the server sent before it has
// been recorded.
func (s *mcpServer) ping(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), replyWait)
	defer cancel()
	require.NoError(t, s.cs.Ping(ctx, nil))
}

// waitExit waits for the server process to exit after the client closed
// stdin, and returns its status.
func (s *mcpServer) closeAndWait(t testing.TB) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.cs.Close() }()
	select {
	case <-done:
	case <-time.After(replyWait):
		t.Fatal("the server did not exit after stdin EOF")
	}
	return s.cmd.ProcessState.ExitCode()
}
