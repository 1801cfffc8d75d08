package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/methods"
	"github.com/toolrpc/toolrpc/procgroup"
	"github.com/toolrpc/toolrpc/rpc"
)

// leakBackstop bounds each wait so a wedged server fails the test instead of
// hanging it; it is not a speed assertion.
var leakBackstop = 2 * time.Minute

// TestServe_MixedLoadLeavesNoGoroutine runs the real toolbox through rpc.Serve
// over io.Pipe with a mixed, partly cancelled load, then shutdown + exit, and
// checks that every goroutine the server started has ended.
func TestServe_MixedLoadLeavesNoGoroutine(t *testing.T) {
	// The guardian lives as long as the process, by design (its supervisor
	// goroutine, its pipe and pidfd): start it before the baseline.
	procgroup.Guard()
	require.Eventually(t, func() bool { return procgroup.GuardianPid() != 0 }, leakBackstop, time.Millisecond)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	root, data := t.TempDir(), t.TempDir()
	var big strings.Builder
	for i := 1; i <= 60000; i++ {
		fmt.Fprintf(&big, "%06d needle %s\n", i, strings.Repeat("x", i%90))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "big.txt"), []byte(big.String()), 0o644))
	for i := 0; i < 50; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.go", i)), []byte("package f\n// needle\n"), 0o644))
	}

	fdsBefore := openFDs(t)
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	served := make(chan int, 1)
	go func() {
		served <- rpc.Serve(context.Background(), serverIn, serverOut, methods.NewToolbox(methods.Config{}),
			rpc.Options{})
		serverOut.Close()
	}()
	var mu sync.Mutex
	progress := 0
	handler := jsonrpc2.HandlerWithError(func(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
		if r.Method == "$/progress" {
			mu.Lock()
			progress++
			mu.Unlock()
		}
		return nil, nil
	})
	conn := jsonrpc2.NewConn(context.Background(),
		jsonrpc2.NewBufferedStream(pipeRW{clientIn, clientOut}, jsonrpc2.VSCodeObjectCodec{}),
		handler, jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	ctx, cancel := context.WithTimeout(context.Background(), leakBackstop)
	defer cancel()

	var init json.RawMessage
	require.NoError(t, conn.Call(ctx, "initialize", map[string]any{
		"rootUri": "file://" + root, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"dataDir": data, "sessionId": "leak"},
	}, &init))
	require.NoError(t, conn.Notify(ctx, "initialized", map[string]any{}))

	goSrc := filepath.Join(runtime.GOROOT(), "src", "strings")
	calls := []struct {
		method string
		params map[string]any
	}{
		{"tools/bash", map[string]any{"command": "setsid sleep 300 & seq 1 200000; echo err >&2; sleep 0.2"}},
		{"tools/bash", map[string]any{"command": "setsid sleep 300 & sleep 300", "timeout": 1}},
		{"tools/bash", map[string]any{"command": "yes | head -c 3000000", "timeout": 30}},
		{"tools/grep", map[string]any{"pattern": "needle", "outputMode": "content", "headLimit": 500}},
		{"tools/grep", map[string]any{"pattern": "func", "path": goSrc, "outputMode": "count"}},
		{"tools/glob", map[string]any{"pattern": "**/*.go"}},
		{"tools/read", map[string]any{"path": "big.txt", "offset": 30000, "limit": 4000}},
		{"tools/read", map[string]any{"path": "big.txt"}},
		{"tools/write", map[string]any{"path": "new.txt", "content": "a\nb\n"}},
		{"tools/read", map[string]any{"path": "missing.txt"}},
	}
	const n = 40
	waiters := make([]jsonrpc2.Waiter, n)
	for i := 0; i < n; i++ {
		c := calls[i%len(calls)]
		w, err := conn.DispatchCall(ctx, c.method, c.params, jsonrpc2.PickID(jsonrpc2.ID{Num: uint64(100 + i)}))
		require.NoError(t, err)
		waiters[i] = w
		if i%4 == 1 {
			require.NoError(t, conn.Notify(ctx, "$/cancelRequest", map[string]any{"id": 100 + i}))
		}
	}
	var answered, failed int
	for i, w := range waiters {
		var res json.RawMessage
		err := w.Wait(ctx, &res)
		var e *jsonrpc2.Error
		switch {
		case err == nil:
			answered++
		case errors.As(err, &e):
			failed++
		default:
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// A call still running now would be cancelled by shutdown.
	slow, err := conn.DispatchCall(ctx, "tools/bash", map[string]any{"command": "sleep 300"})
	require.NoError(t, err)
	require.NoError(t, conn.Call(ctx, "shutdown", nil, nil))
	var e *jsonrpc2.Error
	require.ErrorAs(t, slow.Wait(ctx, nil), &e)
	require.EqualValues(t, -32800, e.Code)
	require.NoError(t, conn.Notify(ctx, "exit", nil))
	select {
	case code := <-served:
		require.Equal(t, 0, code)
	case <-ctx.Done():
		t.Fatal("Serve did not return after exit")
	}
	_ = conn.Close() // the server side has closed it already
	clientOut.Close()
	t.Logf("%d results, %d error replies, %d progress notifications", answered, failed, progress)
	require.Positive(t, progress)
	// Every fd the session opened is closed, and no process it started is
	// left as a child of this (subreaper) process, but the guardian.
	require.LessOrEqual(t, len(openFDs(t)), len(fdsBefore), "fds before %v, after %v", fdsBefore, openFDs(t))
	require.Equal(t, []string{fmt.Sprintf("%d %d (exe)", procgroup.GuardianPid(), procgroup.GuardianPid())}, childProcs(t))
}

// openFDs lists this process's open file descriptors and their targets.
func openFDs(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		l, _ := os.Readlink("/proc/self/fd/" + e.Name())
		out = append(out, e.Name()+"->"+l)
	}
	return out
}

// childProcs lists the processes whose parent is this process.
func childProcs(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	me := strconv.Itoa(os.Getpid())
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		if f := strings.Fields(string(b[i+1:])); len(f) > 1 && f[1] == me {
			out = append(out, e.Name()+" "+string(b[:i+1]))
		}
	}
	return out
}

// pipeRW joins the two ends the client uses into one ReadWriteCloser.
type pipeRW struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p pipeRW) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRW) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRW) Close() error {
	p.w.Close()
	return p.r.Close()
}
