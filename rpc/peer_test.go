package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// peerService's "ask" handler asks the client a question of the server's
// own through PeerFrom and returns the client's answer (or its error).
type peerService struct{ testService }

func (s *peerService) Handler(method string) Handler {
	if method != "ask" {
		return s.testService.Handler(method)
	}
	return func(ctx context.Context, c *Call) (any, error) {
		peer := PeerFrom(ctx)
		if peer == nil {
			return nil, errors.New("no peer in the handler's context")
		}
		ctx, cancel := context.WithTimeout(ctx, replyBackstop) // a lost reply fails the test
		defer cancel()
		res, err := peer.Call(ctx, "client/question", map[string]any{"q": string(c.Params)})
		if err != nil {
			return nil, err
		}
		return json.RawMessage(res), nil
	}
}

// replyBackstop bounds the wait for a reply the test sends; not a speed
// assertion.
const replyBackstop = 30 * time.Second

// serverRequest waits for the server's request of method and returns it.
func (c *client) serverRequest(method string) map[string]any {
	for m := range c.got {
		if m["method"] == method && m["id"] != nil {
			return m
		}
	}
	c.t.Fatalf("connection closed before a %s request", method)
	return nil
}

// TestPeerCall: a request of the server's own gets a string id, a reply
// to it (its id sent with an escaped slash, as some JSON encoders write
// it) comes back to the caller, and an error reply comes back as an
// *Error with the client's code.
func TestPeerCall(t *testing.T) {
	c := newClient(t, &peerService{}, Options{})
	initialize(c)

	c.send(`{"jsonrpc":"2.0","id":1,"method":"ask","params":[1]}`)
	req := c.serverRequest("client/question")
	id, ok := req["id"].(string)
	require.True(t, ok, "the server's id is a string: %v", req["id"])
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s","result":{"answer":42}}`, strings.ReplaceAll(id, "/", `\/`)))
	seen := c.until(1)
	require.Equal(t, map[string]any{"answer": float64(42)}, seen[len(seen)-1]["result"])

	c.send(`{"jsonrpc":"2.0","id":2,"method":"ask","params":[2]}`)
	req = c.serverRequest("client/question")
	require.NotEqual(t, id, req["id"], "each request has its own id")
	reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req["id"], "error": map[string]any{"code": -32601, "message": "unhandled"}})
	c.send(string(reply))
	seen = c.until(2)
	e := seen[len(seen)-1]["error"].(map[string]any)
	require.Equal(t, float64(-32601), e["code"])
	require.Equal(t, "unhandled", e["message"])

	// A reply nobody waits for is dropped, not answered.
	c.send(`{"jsonrpc":"2.0","id":"toolrpc/99","result":null}`)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"echo","params":[3]}`)
	seen = c.until(3)
	require.Len(t, seen, 1, "nothing but the echo's reply: %v", seen)
	require.Equal(t, 0, c.close())
}

// TestPeerCallEndsWithInput: a Call waiting for a reply returns
// ErrPeerGone when the input ends, and later Calls fail at once.
func TestPeerCallEndsWithInput(t *testing.T) {
	p := newPeer(newFrameStream(nil, discard{}, nil, nil))
	done := make(chan error, 1)
	go func() {
		_, err := p.Call(context.Background(), "client/question", nil)
		done <- err
	}()
	for {
		p.mu.Lock()
		n := len(p.pending)
		p.mu.Unlock()
		if n == 1 {
			break
		}
		runtime.Gosched()
	}
	p.end()
	require.ErrorIs(t, <-done, ErrPeerGone)
	_, err := p.Call(context.Background(), "client/question", nil)
	require.ErrorIs(t, err, ErrPeerGone)
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
