package mcpserve

import (
	"bytes"
	"context"
	"io"
	"log"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolrpc/toolrpc/internal/sandbox"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/methods"
	"github.com/toolrpc/toolrpc/wire"
)

// Config is what the command line gives `toolrpc mcp`.
type Config struct {
	// Roots are the workspace roots; none means the client's roots/list, else
	// the working directory.
	Roots []string
	// DataDir is the data directory ("" = methods' default).
	DataDir string
	// SessionID is the session id ("" = random).
	SessionID string
	// Version is reported in serverInfo.
	Version string
	// Logger receives the server's logs; nil discards them.
	Logger *log.Logger
	// Sandbox is the host's sandbox policy (SPEC §14), from the command line.
	Sandbox wire.SandboxPolicy
	// Toolset is the tool families the server lists (SPEC §16; nil:
	// toolrpc's own).
	Toolset methods.Toolset
}

// server is one `toolrpc mcp` process's state.
type server struct {
	ctx      context.Context // the tool calls' context: ends with the input, or with Serve's ctx
	filter   *cancelFilter
	sessions *sessionStarter
	calls    callTracker
}

// Serve serves MCP on in/out until in ends or ctx is cancelled. When in
// ends, every request read before the end is answered — a tool call still
// running is cancelled (its process tree killed) and answers CANCELLED —
// and each write to out may then block for at most limits.EndingWriteGrace
// when out takes write deadlines. Serve then waits for every call to return and removes the
// session's scratch dir. It returns the connection's error, nil after a
// clean EOF.
func Serve(ctx context.Context, in io.ReadCloser, out io.Writer, cfg Config) error {
	logger := cfg.Logger
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	callCtx, endCalls := context.WithCancel(ctx)
	defer endCalls()
	s := &server{ctx: callCtx, sessions: newSessionStarter(cfg)}
	w := newHostWriter(out)
	s.filter = newCancelFilter(&mcp.IOTransport{Reader: in, Writer: w, MaxLineLength: limits.MaxFrameBytes})
	onEnd := func() {
		endCalls()
		w.beginEnding()
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "toolrpc", Version: cfg.Version}, &mcp.ServerOptions{
		Logger: slog.New(slog.NewTextHandler(logger.Writer(), &slog.HandlerOptions{Level: slog.LevelWarn})),
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Logging: &mcp.LoggingCapabilities{},
			Experimental: sandboxCapability(cfg)},
		InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
			s.sessions.early(req.Session)
		},
	})
	ts, ms := tools(cfg.Toolset)
	for i, t := range ts {
		srv.AddTool(t, s.handler(t.Name, ms[i]))
	}
	err := run(ctx, srv, &endHold{inner: s.filter, onEnd: onEnd})
	cancel()
	s.calls.close()
	if sess := s.sessions.built(); sess != nil {
		methods.CloseSession(sess)
	}
	if err == context.Canceled || err == io.EOF {
		err = nil
	}
	return err
}

// run serves one session over t until the client ends it or ctx ends. It is
// mcp.Server.Run without Run's ERROR log line when ctx ends: a requested end
// (SIGTERM, the host's death) is not an error; its result is nil.
func run(ctx context.Context, srv *mcp.Server, t mcp.Transport) error {
	ss, err := srv.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = ss.Close() })
	defer stop()
	err = ss.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// callTracker counts the tool calls running, so Serve returns only after
// each has returned (and so killed its process tree).
type callTracker struct {
	mu     sync.RWMutex
	closed bool
	wg     sync.WaitGroup
}

// enter registers a call; false once the server is closing.
func (c *callTracker) enter() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	return true
}

// leave ends a call enter registered.
func (c *callTracker) leave() { c.wg.Done() }

// close refuses new calls and waits for the running ones.
func (c *callTracker) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
}

// hostWriter is out as the WriteCloser the transport wants; stdout stays
// open (the process exit closes it). The SDK encodes each message with HTML
// escaping and writes it whole: Write rewrites it as wire.Marshal would have
// (wire.Unescape), so both faces write one JSON encoding. Once the session
// is ending, each write may block for at most limits.EndingWriteGrace when
// out takes write deadlines: a host that stopped reading cannot keep the
// server alive, and one that reads, however slowly, gets every answer.
type hostWriter struct {
	out    io.Writer
	dl     interface{ SetWriteDeadline(time.Time) error } // out, when it takes deadlines
	ending atomic.Bool
}

func newHostWriter(out io.Writer) *hostWriter {
	w := &hostWriter{out: out}
	w.dl, _ = out.(interface{ SetWriteDeadline(time.Time) error })
	return w
}

// beginEnding bounds every write from now on, and one blocked now.
func (w *hostWriter) beginEnding() {
	w.ending.Store(true)
	w.bound()
}

// bound gives the next write (or the one blocked) EndingWriteGrace.
func (w *hostWriter) bound() {
	if w.dl != nil {
		_ = w.dl.SetWriteDeadline(time.Now().Add(limits.EndingWriteGrace))
	}
}

// Write writes b with its HTML escapes undone. The transport serialises
// its writes.
func (w *hostWriter) Write(b []byte) (int, error) {
	if w.ending.Load() {
		w.bound()
	}
	if !bytes.Contains(b, []byte(`\u00`)) {
		return w.out.Write(b)
	}
	if _, err := w.out.Write(wire.Unescape(bytes.Clone(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Close implements io.Closer; out stays open.
func (*hostWriter) Close() error { return nil }

// SandboxCapability is the key in initialize's capabilities.experimental
// under which the MCP face states the sandbox policy in force (SPEC §14).
const SandboxCapability = "toolrpc/sandbox"

// sandboxCapability returns the experimental capabilities that state the
// sandbox policy: cfg.Sandbox resolved on the --root roots. The client's
// roots (or the working directory) and the session's scratch dir are not
// known before initialize's result, so without --root the writable set
// lists the other writable paths only; mode, network, the deny list,
// enforcedBy and gaps do not depend on them. Nil when the policy cannot be
// resolved: the first tool call then returns the error.
func sandboxCapability(cfg Config) map[string]any {
	var dirs []string
	for _, r := range cfg.Roots {
		if abs, err := filepath.Abs(r); err == nil {
			dirs = append(dirs, abs)
		}
	}
	pol, err := sandbox.Resolve(cfg.Sandbox, sandbox.HostEnv(dirs, ""))
	if err != nil {
		return nil
	}
	return map[string]any{SandboxCapability: pol.State()}
}
