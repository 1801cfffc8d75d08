package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/lspframe"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testService serves a few handlers that exercise the server's guarantees.
type testService struct {
	shutdowns int
	release   chan struct{}
	// lateStarts counts "start" handlers invoked with their context already
	// cancelled: calls the server should never have started.
	lateStarts atomic.Int64
}

func (s *testService) Initialize(ctx context.Context, p *protocol.InitializeParams) (any, error) {
	return map[string]any{"ok": true}, nil
}

func (s *testService) Shutdown() { s.shutdowns++ }

func (s *testService) Handler(method string) Handler {
	switch method {
	case "echo":
		return func(ctx context.Context, c *Call) (any, error) { return c.Params, nil }
	case "late-progress":
		// Starts a producer that keeps notifying after the handler returns:
		// those notifications must never follow the reply.
		return func(ctx context.Context, c *Call) (any, error) {
			require.NoError(nil, c.Progress(c.ID, "before"))
			go func() {
				for i := 0; i < 50; i++ {
					if c.Progress(c.ID, "after") == ErrCallDone {
						return
					}
				}
			}()
			return "done", nil
		}
	case "block":
		return func(ctx context.Context, c *Call) (any, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-s.release:
				return "released", nil
			}
		}
	case "start":
		return func(ctx context.Context, c *Call) (any, error) {
			if ctx.Err() != nil {
				s.lateStarts.Add(1)
			}
			return nil, ctx.Err()
		}
	case "panic":
		return func(ctx context.Context, c *Call) (any, error) { panic("boom") }
	case "tool-error":
		return func(ctx context.Context, c *Call) (any, error) {
			return nil, fmt.Errorf("wrapped: %w", Errorf(NotFound, "no such file").WithData(map[string]any{"suggestions": []string{"a"}}))
		}
	}
	return nil
}

// client drives Serve over pipes.
type client struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *frameStream
	done chan int
	mu   sync.Mutex
	msgs []map[string]any
	got  chan map[string]any
}

func newClient(t *testing.T, svc Service, opts Options) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, done: make(chan int, 1), got: make(chan map[string]any, 1000)}
	go func() { c.done <- Serve(context.Background(), inR, outW, svc, opts); outW.Close() }()
	go func() {
		// The client reads responses with the same framing.
		r := lspframe.NewReader(outR, maxFrameBytes)
		for {
			body, err := r.Read()
			if err != nil {
				close(c.got)
				return
			}
			var m map[string]any
			_ = json.Unmarshal(body, &m)
			c.got <- m
		}
	}()
	return c
}

func (c *client) send(msg string) {
	_, err := io.WriteString(c.in, frameOf(msg))
	require.NoError(c.t, err)
}

// until collects messages until one is the reply to id.
func (c *client) until(id float64) []map[string]any {
	var seen []map[string]any
	for m := range c.got {
		seen = append(seen, m)
		if m["method"] == nil && m["id"] == id {
			return seen
		}
	}
	c.t.Fatalf("connection closed before reply %v", id)
	return nil
}

func (c *client) close() int {
	c.in.Close()
	for range c.got {
	}
	return <-c.done
}

func initialize(c *client) {
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	c.until(0)
}

func TestServer_NoProgressAfterReply(t *testing.T) {
	c := newClient(t, &testService{}, Options{})
	initialize(c)
	for i := 1; i <= 20; i++ {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"late-progress"}`, i))
		seen := c.until(float64(i))
		require.Equal(t, "before", seen[0]["params"].(map[string]any)["value"])
	}
	// Anything after the last reply must not be progress of a replied call.
	c.send(`{"jsonrpc":"2.0","id":100,"method":"echo","params":[1]}`)
	for _, m := range c.until(100) {
		if m["method"] == "$/progress" {
			t.Fatalf("progress after its call's reply: %v", m)
		}
	}
	require.Equal(t, 0, c.close())
}

func TestServer_CancelQueuedAndRunning(t *testing.T) {
	svc := &testService{release: make(chan struct{})}
	c := newClient(t, svc, Options{MaxConcurrent: 1})
	initialize(c)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"block"}`) // queued behind 1
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`)
	seen := c.until(2)
	reply := seen[len(seen)-1]["error"].(map[string]any)
	require.EqualValues(t, CodeRequestCancelled, reply["code"])
	require.Equal(t, "CANCELLED", reply["data"].(map[string]any)["code"])
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	seen = c.until(1)
	require.EqualValues(t, CodeRequestCancelled, seen[len(seen)-1]["error"].(map[string]any)["code"])
	// Unknown ids are ignored.
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"nope"}}`)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"echo","params":{}}`)
	c.until(3)
	require.Equal(t, 0, c.close())
	require.Equal(t, 1, svc.shutdowns)
}

func TestServer_PanicAndToolErrors(t *testing.T) {
	c := newClient(t, &testService{}, Options{})
	initialize(c)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"panic"}`)
	seen := c.until(1)
	e := seen[len(seen)-1]["error"].(map[string]any)
	require.EqualValues(t, CodeInternalError, e["code"])
	require.True(t, strings.Contains(e["message"].(string), "boom"))
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tool-error"}`)
	seen = c.until(2)
	e = seen[len(seen)-1]["error"].(map[string]any)
	require.EqualValues(t, CodeToolFailure, e["code"])
	require.Equal(t, map[string]any{"code": "NOT_FOUND", "suggestions": []any{"a"}}, e["data"])
	require.Equal(t, 0, c.close())
}

func TestServer_ShutdownCancelsRunning(t *testing.T) {
	svc := &testService{release: make(chan struct{})}
	c := newClient(t, svc, Options{})
	initialize(c)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	time.Sleep(10 * time.Millisecond) // let it start; either way it must be cancelled
	c.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	seen := c.until(2)
	var cancelled bool
	for _, m := range seen {
		if m["id"] == float64(1) {
			cancelled = m["error"].(map[string]any)["code"] == float64(CodeRequestCancelled)
		}
	}
	require.True(t, cancelled, "running call not cancelled before the shutdown reply: %v", seen)
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	require.Equal(t, 0, c.close())
}

func TestErrorWireData(t *testing.T) {
	data, err := Errorf(Timeout, "x").WithData(map[string]any{"exitCode": nil, "stdout": "a"}).wireData()
	require.NoError(t, err)
	require.JSONEq(t, `{"code":"TIMEOUT","exitCode":null,"stdout":"a"}`, string(data))
	require.EqualValues(t, CodeInvalidParams, Errorf(InvalidArgument, "x").Code)
	require.EqualValues(t, CodeRequestCancelled, Errorf(Cancelled, "x").Code)
	require.EqualValues(t, CodeToolFailure, Errorf(StaleTag, "x").Code)
}

// TestServer_CancelWithItsRequest sends each request and its cancel in one
// write, with one P so the call's goroutine and the read loop race the way
// they do on a loaded host: no handler may start once its cancel was read
// (before the fix, select picked the slot about half the time).
func TestServer_CancelWithItsRequest(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	svc := &testService{}
	c := newClient(t, svc, Options{})
	initialize(c)
	const n = 300
	for i := 1; i <= n; i++ {
		_, err := io.WriteString(c.in, frameOf(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"start"}`, i))+
			frameOf(fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%d}}`, i)))
		require.NoError(t, err)
	}
	replies := 0
	for m := range c.got {
		if m["method"] == nil {
			require.EqualValues(t, CodeRequestCancelled, m["error"].(map[string]any)["code"], "%v", m)
			if replies++; replies == n {
				break
			}
		}
	}
	require.Equal(t, n, replies)
	require.Zero(t, svc.lateStarts.Load(), "handlers started after their cancel was read")
	require.Equal(t, 0, c.close())
}

// TestServer_NumericallyEqualIDs: 7 and 7.0 (and 1e1 and 10) are one id for
// $/cancelRequest and for duplicate detection; the reply still echoes the id
// as sent.
func TestServer_NumericallyEqualIDs(t *testing.T) {
	svc := &testService{release: make(chan struct{})}
	c := newClient(t, svc, Options{})
	initialize(c)
	c.send(`{"jsonrpc":"2.0","id":7,"method":"block"}`)
	c.send(`{"jsonrpc":"2.0","id":7.0,"method":"echo","params":{}}`)
	seen := c.until(7)
	dup := seen[len(seen)-1]
	require.EqualValues(t, CodeInvalidRequest, dup["error"].(map[string]any)["code"], "7.0 while 7 runs: %v", dup)
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":70e-1}}`)
	seen = c.until(7)
	require.EqualValues(t, CodeRequestCancelled, seen[len(seen)-1]["error"].(map[string]any)["code"])

	c.send(`{"jsonrpc":"2.0","id":1e1,"method":"block"}`)
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":10}}`)
	seen = c.until(10)
	require.EqualValues(t, CodeRequestCancelled, seen[len(seen)-1]["error"].(map[string]any)["code"])
	require.Equal(t, 0, c.close())
}
