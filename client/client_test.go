//go:build unix

package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toolrpc/toolrpc/client"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/lspframe"
	"github.com/toolrpc/toolrpc/wire"
)

// start starts the real server on a fresh workspace holding files, and
// initializes it. The connection is closed (or killed) when the test ends.
func start(t *testing.T, files map[string]string) (*client.Conn, *exec.Cmd, *lockedBuffer) {
	t.Helper()
	root, data := t.TempDir(), t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	cmd := exec.Command("toolrpc")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	c, err := client.Start(cmd, client.Options{})
	require.NoError(t, err)
	t.Cleanup(c.Kill)
	_, err = c.Initialize(context.Background(), &protocol.InitializeParams{
		ProcessID:             int32(os.Getpid()),
		RootURI:               protocol.DocumentURI(uri.File(root)),
		InitializationOptions: map[string]any{"dataDir": data},
	})
	require.NoError(t, err, "stderr: %s", stderr)
	return c, cmd, stderr
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCall_ConcurrentRepliesMatched makes many calls at once: each gets its
// own reply, whatever order the server answers in.
func TestCall_ConcurrentRepliesMatched(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("f%02d.txt", i)] = fmt.Sprintf("content of %d\n", i)
	}
	c, cmd, _ := start(t, files)
	var wg sync.WaitGroup
	got := make([]string, 20)
	errs := make([]error, 20)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.Read(context.Background(), wire.ReadParams{Path: fmt.Sprintf("f%02d.txt", i)})
			if errs[i] = err; err == nil {
				got[i] = r.Content
			}
		}()
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		require.Contains(t, got[i], fmt.Sprintf("content of %d", i))
	}
	require.NoError(t, c.Close())
	require.Equal(t, 0, cmd.ProcessState.ExitCode())
}

// TestCall_ErrorReply: a tool failure is an *Error with the JSON-RPC code,
// data.code and data.
func TestCall_ErrorReply(t *testing.T) {
	c, _, _ := start(t, nil)
	_, err := c.Read(context.Background(), wire.ReadParams{Path: "missing.txt"})
	var e *client.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, int64(-32001), e.Code)
	require.Equal(t, "NOT_FOUND", e.Kind)
	require.Contains(t, string(e.Data), `"code":"NOT_FOUND"`)
	require.Contains(t, e.Error(), "NOT_FOUND")

	err = c.Call(context.Background(), "tools/nope", map[string]any{}, nil)
	require.ErrorAs(t, err, &e)
	require.Equal(t, int64(-32601), e.Code)
	require.Empty(t, e.Kind)
}

// TestCall_OverFrameLimitRefusedHere: a request over MAX_FRAME_BYTES is
// refused by the client, which the server could only answer with a reply
// of null id; the connection serves the next call. (The fault campaign's
// driver lost its whole connection to such a reply.)
func TestCall_OverFrameLimitRefusedHere(t *testing.T) {
	c, _, _ := start(t, map[string]string{"a.txt": "a\n"})
	big := strings.Repeat("x", limits.MaxFrameBytes)
	_, err := c.Write(context.Background(), wire.WriteParams{Path: "big.txt", Content: &big})
	require.ErrorContains(t, err, "over the server's frame limit")
	res, err := c.Read(context.Background(), wire.ReadParams{Path: "a.txt"})
	require.NoError(t, err)
	require.Contains(t, res.Content, "a")
}

// TestCall_ProgressBeforeReply: every $/progress of a call reaches its
// callback, in order, before Call returns.
func TestCall_ProgressBeforeReply(t *testing.T) {
	c, _, _ := start(t, nil)
	var mu sync.Mutex
	var chunks []string
	res, err := c.Bash(context.Background(),
		wire.BashParams{Command: `for i in $(seq 1 40); do echo "line $i"; sleep 0.01; done`},
		client.WithProgress(func(v json.RawMessage) {
			var p struct {
				Stream string `json:"stream"`
				Seq    int    `json:"seq"`
				Data   string `json:"data"`
			}
			require.NoError(t, json.Unmarshal(v, &p))
			mu.Lock()
			defer mu.Unlock()
			require.Equal(t, len(chunks), p.Seq, "chunks in order")
			chunks = append(chunks, p.Data)
		}))
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.Greater(t, res.StdoutInfo.Chunks, 1, "the command was meant to stream in several chunks")
	require.Len(t, chunks, res.StdoutInfo.Chunks, "every chunk the server sent was delivered before Call returned")
	require.Equal(t, res.Stdout, strings.Join(chunks, ""))
}

// TestCall_CancelCarriesPartialResult: cancelling the context cancels the
// call on the server, and the error carries the partial result.
func TestCall_CancelCarriesPartialResult(t *testing.T) {
	c, _, _ := start(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := c.Bash(ctx, wire.BashParams{Command: "echo partial; exec sleep 600"},
		client.WithProgress(func(json.RawMessage) { cancel() }))
	require.ErrorIs(t, err, context.Canceled)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, int64(client.CodeRequestCancelled), e.Code)
	require.Equal(t, "CANCELLED", e.Kind)
	partial, ok := e.Partial()
	require.True(t, ok, "a cancelled bash carries its partial result")
	require.Equal(t, "partial\n", partial.Stdout)
	// The connection is still good.
	require.NoError(t, c.Call(context.Background(), "tools/list", nil, nil))
	require.NoError(t, c.Close())
}

// TestStart_ServerExitsEarly: a server that exits before replying fails the
// pending call with ErrClosed and its exit status; nothing hangs.
func TestStart_ServerExitsEarly(t *testing.T) {
	cmd := exec.Command("toolrpc", "--no-such-flag")
	c, err := client.Start(cmd, client.Options{})
	require.NoError(t, err)
	t.Cleanup(c.Kill)
	_, err = c.Initialize(context.Background(), &protocol.InitializeParams{})
	require.ErrorIs(t, err, client.ErrClosed)
	require.ErrorContains(t, err, "exit status 2")
	<-c.Done()
	err = c.Call(context.Background(), "tools/list", nil, nil)
	require.ErrorIs(t, err, client.ErrClosed, "a call after the end")
	err = c.Call(context.Background(), "tools/list", func() {}, nil)
	require.ErrorContains(t, err, "encode")
	require.NotErrorIs(t, err, client.ErrClosed, "unencodable params are the caller's error")
	err = c.Close()
	require.ErrorIs(t, err, client.ErrClosed)
	require.ErrorContains(t, err, "exit status 2")
}

// TestStart_MalformedReply: output that is not a valid reply ends the
// connection with an error naming the problem, failing the pending call.
func TestStart_MalformedReply(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{"bad json", `Content-Length: 5\r\n\r\n{bad}`, "malformed frame"},
		{"oversized", `Content-Length: 999999999999\r\n\r\n`, "exceeds the"},
		{"missing length", `X: 1\r\n\r\n`, "missing Content-Length"},
		{"truncated body", `Content-Length: 50\r\n\r\n{}`, "unexpected EOF"},
		{"unknown id", printfFrame(`{"jsonrpc":"2.0","id":"x","result":1}`), "never sent"},
		{"no result", printfFrame(`{"jsonrpc":"2.0","id":1}`), "neither result nor error"},
		{"parse error reply", printfFrame(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad frame"}}`), "could not read a request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A "server" that answers the first request with tc.out, then
			// reads its input until it closes.
			cmd := exec.Command("sh", "-c", `IFS= read -r _; printf '`+tc.out+`'; exec cat >/dev/null`)
			c, err := client.Start(cmd, client.Options{})
			require.NoError(t, err)
			defer c.Kill()
			err = c.Call(context.Background(), "tools/list", nil, nil)
			require.ErrorIs(t, err, client.ErrClosed)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// printfFrame frames body for printf(1).
func printfFrame(body string) string {
	return fmt.Sprintf(`Content-Length: %d\r\n\r\n%s`, len(body), body)
}

// TestClose_HangOnShutdownKilled: a server that stops answering is killed
// by Close, which says so.
func TestClose_HangOnShutdownKilled(t *testing.T) {
	defer client.ShortenWaits(300 * time.Millisecond)()
	c, cmd, _ := start(t, nil)
	require.NoError(t, cmd.Process.Signal(syscall.SIGSTOP))
	waitStopped(t, cmd.Process.Pid)
	err := c.Close()
	require.ErrorContains(t, err, "shutdown: no reply")
	require.ErrorContains(t, err, "killed")
	st := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, st.Signaled())
	require.Equal(t, syscall.SIGKILL, st.Signal())
}

// waitStopped returns once pid is stopped: a signal is delivered after kill
// returns, and a server not stopped yet could still answer shutdown (seen
// on a loaded machine). Where there is no /proc it waits a moment instead.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	for range 5000 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			return
		}
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) && b[i+2] == 'T' {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("process %d never stopped", pid)
}

// TestNew_Attached drives a server over pipes the caller owns (here a
// child's, started without Start): the same calls, and Close ends it.
func TestNew_Attached(t *testing.T) {
	cmd := exec.Command("toolrpc")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c := client.New(out, in, client.Options{})
	_, err = c.Initialize(context.Background(), &protocol.InitializeParams{
		RootURI: protocol.DocumentURI(uri.File(t.TempDir())), InitializationOptions: map[string]any{"dataDir": t.TempDir()},
	})
	require.NoError(t, err)
	var tools []struct {
		Name string `json:"name"`
	}
	require.NoError(t, c.Call(context.Background(), "tools/list", nil, &tools))
	require.NotEmpty(t, tools)
	require.NoError(t, c.Close())
	require.NoError(t, cmd.Wait())
}

// TestOnNotification: progress with a token that is not a call's id goes to
// Options.OnNotification.
func TestOnNotification(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	var mu sync.Mutex
	var got []string
	cmd := exec.Command("toolrpc")
	c, err := client.Start(cmd, client.Options{OnNotification: func(method string, params json.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, method+" "+string(params))
	}})
	require.NoError(t, err)
	defer c.Kill()
	_, err = c.Initialize(context.Background(), &protocol.InitializeParams{
		RootURI: protocol.DocumentURI(uri.File(root)), InitializationOptions: map[string]any{"dataDir": data},
	})
	require.NoError(t, err)
	require.NoError(t, c.Call(context.Background(), "tools/bash", map[string]any{"command": "echo hi", "workDoneToken": "mine"}, nil))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 1)
	require.Contains(t, got[0], `$/progress {"token":"mine"`)
	require.Contains(t, got[0], `"data":"hi\n"`)
}

// TestCall_ReplyThenEnd: a reply read just before the server's output ends
// is still the call's result (the connection's end does not hide it).
func TestCall_ReplyThenEnd(t *testing.T) {
	for i := 0; i < 1000; i++ { // the race it guards is hit about once in a few hundred
		inR, inW := io.Pipe()   // client → server
		outR, outW := io.Pipe() // server → client
		go func() {
			if _, err := lspframe.NewReader(inR, 1<<20).Read(); err != nil {
				return
			}
			_ = lspframe.Write(outW, []byte(`{"jsonrpc":"2.0","id":1,"result":["x"]}`))
			outW.Close()
			_, _ = io.Copy(io.Discard, inR)
		}()
		c := client.New(outR, inW, client.Options{})
		var res []string
		err := c.Call(context.Background(), "tools/list", nil, &res)
		require.NoError(t, err, "iteration %d", i)
		require.Equal(t, []string{"x"}, res, "iteration %d", i)
		c.Kill()
	}
}

// TestBash_Session: the Go client passes session and restart (SPEC §6.7)
// and decodes the result's session.
func TestBash_Session(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell sessions need a Unix bash")
	}
	c, _, _ := start(t, nil)
	ctx := context.Background()
	name := "go"
	_, err := c.Bash(ctx, wire.BashParams{Command: "cd /tmp; X=kept", Session: &name})
	require.NoError(t, err)
	res, err := c.Bash(ctx, wire.BashParams{Command: "echo $PWD $X", Session: &name})
	require.NoError(t, err)
	require.Equal(t, "/tmp kept\n", res.Stdout)
	require.Equal(t, &wire.BashSession{Name: name}, res.Session)
	res, err = c.Bash(ctx, wire.BashParams{Command: "echo \"[$X]\"", Session: &name, Restart: true})
	require.NoError(t, err)
	require.Equal(t, "[]\n", res.Stdout)
	require.True(t, res.Session.Started)
}
