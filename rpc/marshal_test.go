package rpc

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/lspframe"
)

// htmlService answers with text full of the characters json.Marshal escapes.
type htmlService struct{}

func (htmlService) Initialize(ctx context.Context, p *protocol.InitializeParams) (any, error) {
	return map[string]any{}, nil
}

func (htmlService) Shutdown() {}

func (htmlService) Handler(method string) Handler {
	switch method {
	case "hit":
		return func(ctx context.Context, c *Call) (any, error) {
			if err := c.Progress(c.ID, map[string]string{"text": "<progress> & more"}); err != nil {
				return nil, err
			}
			return map[string]string{"text": "if a < b && c > d {"}, nil
		}
	case "fail":
		return func(ctx context.Context, c *Call) (any, error) {
			return nil, Errorf(NotFound, "no <such> file").WithData(map[string]string{"path": "a&b"})
		}
	}
	return nil
}

// TestFramesAreNotHTMLEscaped reads the raw frames: results, progress and
// errors carry <, > and & as they are, never \u003c, \u003e or \u0026.
func TestFramesAreNotHTMLEscaped(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- Serve(context.Background(), inR, outW, htmlService{}, Options{}); outW.Close() }()
	frames := make(chan string, 16)
	go func() {
		r := lspframe.NewReader(outR, 1<<20)
		for {
			body, err := r.Read()
			if err != nil {
				close(frames)
				return
			}
			frames <- string(body)
		}
	}()
	send := func(msg string) {
		_, err := io.WriteString(inW, frameOf(msg))
		require.NoError(t, err)
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	<-frames
	send(`{"jsonrpc":"2.0","id":1,"method":"hit","params":{}}`)
	progress, result := <-frames, <-frames
	send(`{"jsonrpc":"2.0","id":2,"method":"fail","params":{}}`)
	failure := <-frames
	inW.Close()
	for range frames {
	}
	<-done
	require.Contains(t, progress, `"text":"<progress> & more"`)
	require.Contains(t, result, `"text":"if a < b && c > d {"`)
	require.Contains(t, failure, `no <such> file`)
	require.Contains(t, failure, `"path":"a&b"`)
	for _, f := range []string{progress, result, failure} {
		require.False(t, strings.Contains(f, `\u003c`) || strings.Contains(f, `\u003e`) || strings.Contains(f, `\u0026`), f)
	}
}
