package conformance

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// mcpPipe is a `toolrpc mcp` driven with raw newline-delimited frames, as
// a shell script or a batch client drives it: the frames are written as
// they are (ids spelled as the test spells them), and every line the server
// writes is kept in order.
type mcpPipe struct {
	Root   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr *lockedBuffer
	done   chan struct{} // closed when stdout reaches EOF

	mu  sync.Mutex
	got []json.RawMessage
}

// mcpPipeStart spawns `toolrpc mcp --root R --data-dir D` in a fresh root
// holding a.txt ("hi\n"); without withRoot, the --root flag is left out
// (the root is the client's, else the working directory). Cleanup closes
// stdin and waits for the server.
func mcpPipeStart(t *testing.T, withRoot bool) *mcpPipe {
	t.Helper()
	p := &mcpPipe{Root: t.TempDir(), stderr: &lockedBuffer{}, done: make(chan struct{})}
	require.NoError(t, os.WriteFile(p.Root+"/a.txt", []byte("hi\n"), 0o644))
	args := []string{"mcp", "--data-dir", t.TempDir()}
	if withRoot {
		args = append(args, "--root", p.Root)
	}
	if winePaths {
		args = wineEnv(args)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Dir = p.Root
	p.cmd.Stderr = p.stderr
	if winePaths {
		p.cmd.WaitDelay = wineWaitDelay
	}
	var err error
	p.in, err = p.cmd.StdinPipe()
	require.NoError(t, err)
	out, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	go func() {
		defer close(p.done)
		lines := bufio.NewScanner(out)
		lines.Buffer(nil, 1<<26)
		for lines.Scan() {
			b := append([]byte(nil), lines.Bytes()...)
			if winePaths {
				b = fromWine(b)
			}
			p.mu.Lock()
			p.got = append(p.got, b)
			p.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = p.in.Close()
		select {
		case <-p.done:
		case <-time.After(replyWait):
			_ = p.cmd.Process.Kill()
		}
		_ = p.cmd.Wait()
		if strings.Contains(p.stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("the server reported a data race:\n%s", tail(p.stderr.String(), 8000))
		}
		if t.Failed() {
			t.Logf("server stderr (tail):\n%s", tail(p.stderr.String(), 4000))
		}
	})
	return p
}

// mcpInitialize is the initialize request (id 0) of a client of protocol
// 2025-06-18 that offers no roots.
const mcpInitialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"conformance","version":"1"}}}`

// mcpInitialized is the notifications/initialized notification.
const mcpInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`

// mcpToolCall is a tools/call frame with the raw JSON id and the tool's
// arguments.
func mcpToolCall(t testing.TB, id, tool string, args map[string]any) string {
	b, err := json.Marshal(map[string]any{"name": tool, "arguments": args})
	require.NoError(t, err)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}`, id, b)
}

// write writes frames, each followed by a newline, in one write.
func (p *mcpPipe) write(t testing.TB, frames ...string) {
	t.Helper()
	var b strings.Builder
	for _, f := range frames {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	data := []byte(b.String())
	if winePaths {
		data = toWine(data)
	}
	_, err := p.in.Write(data)
	require.NoError(t, err)
}

// lines returns every line the server wrote so far.
func (p *mcpPipe) lines() []json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]json.RawMessage(nil), p.got...)
}

// mcpReply is a response line, its id as written.
type mcpReply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// replies returns the responses written so far (notifications left out),
// in order.
func (p *mcpPipe) replies(t testing.TB) []mcpReply {
	t.Helper()
	var out []mcpReply
	for _, l := range p.lines() {
		var r mcpReply
		require.NoError(t, json.Unmarshal(l, &r), "a line that is not JSON: %s", l)
		if r.Method == "" {
			out = append(out, r)
		}
	}
	return out
}

// reply waits for the response to the request with the raw id (compared as
// a JSON value: the go-sdk writes ids re-encoded) and returns it; it fails
// once stdout has ended without it.
func (p *mcpPipe) reply(t testing.TB, id string) mcpReply {
	t.Helper()
	deadline := time.Now().Add(replyWait)
	for {
		select {
		case <-p.done:
			deadline = time.Time{} // one last look
		default:
		}
		for _, r := range p.replies(t) {
			if sameJSON(r.ID, json.RawMessage(id)) {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no response to id %s", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// closeAndDrain closes stdin, reads stdout to its end and returns the
// server's exit status.
func (p *mcpPipe) closeAndDrain(t testing.TB) int {
	t.Helper()
	require.NoError(t, p.in.Close())
	select {
	case <-p.done:
	case <-time.After(replyWait):
		t.Fatal("the server's stdout did not end after stdin EOF")
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("wait: %v", err)
	}
	return p.cmd.ProcessState.ExitCode()
}

// mcpToolResult is a tools/call result: the text of its first block, and
// its structuredContent.
type mcpToolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
}

// errorKind is the data.code of an isError result's structuredContent.
func (r mcpToolResult) errorKind() string {
	var e struct {
		Data struct {
			Code string `json:"code"`
		} `json:"data"`
	}
	_ = json.Unmarshal(r.Structured, &e)
	return e.Data.Code
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
