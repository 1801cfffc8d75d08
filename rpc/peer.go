package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// ErrPeerGone is returned by Peer.Call when the connection's input ended
// before the client replied.
var ErrPeerGone = errors.New("rpc: connection ended before the client replied")

// Peer is the client at the other end of a connection, as the server
// addresses it on its own initiative: requests of the server's own (LSP's
// window/workDoneProgress/create) and notifications outside any call.
// Handlers and Service.Initialize find it with PeerFrom. Its methods may be
// called concurrently.
type Peer struct {
	s *frameStream

	mu      sync.Mutex
	next    int64
	pending map[string]chan response // by id (a string)
	gone    bool
}

// response is a client's reply to a request of the server.
type response struct {
	result json.RawMessage
	err    *Error
}

// request is a request of the server as written on the wire.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

func newPeer(s *frameStream) *Peer { return &Peer{s: s, pending: map[string]chan response{}} }

// Notify writes a notification to the client. It is synchronous: when it
// returns the notification is written.
func (p *Peer) Notify(method string, params any) error {
	return p.s.writeNotification(method, params)
}

// Call sends a request to the client and waits for its reply. It returns
// the reply's result; an error reply is returned as an *Error with the
// client's code and message. It returns ctx's error when ctx ends first
// (a late reply is then dropped), and ErrPeerGone when the input ends.
// Ids are strings ("toolrpc/1", …) the client cannot mistake for its own.
func (p *Peer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p.mu.Lock()
	if p.gone {
		p.mu.Unlock()
		return nil, ErrPeerGone
	}
	p.next++
	id := "toolrpc/" + strconv.FormatInt(p.next, 10)
	ch := make(chan response, 1)
	p.pending[id] = ch
	p.mu.Unlock()
	defer p.forget(id)

	b, err := marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	if err := p.s.writeFrame(b); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, ErrPeerGone
		}
		if r.err != nil {
			return nil, r.err
		}
		return r.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *Peer) forget(id string) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

// deliver hands a response to the Call waiting for id (its JSON, compared
// as the string it decodes to, so "toolrpc\/1" is "toolrpc/1"); a response
// nobody waits for is dropped.
func (p *Peer) deliver(id json.RawMessage, result, errObj json.RawMessage) {
	var key string
	if json.Unmarshal(id, &key) != nil {
		return // a number: never an id of the server's
	}
	p.mu.Lock()
	ch := p.pending[key]
	delete(p.pending, key)
	p.mu.Unlock()
	if ch == nil {
		return
	}
	r := response{result: result}
	if errObj != nil && string(errObj) != "null" {
		var e wireError
		if json.Unmarshal(errObj, &e) != nil {
			e = wireError{Code: CodeInternalError, Message: "unreadable error reply"}
		}
		r.err = &Error{Code: e.Code, Message: e.Message}
	}
	ch <- r
}

// end fails every Call waiting and every later one: the input has ended.
func (p *Peer) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gone = true
	for k, ch := range p.pending {
		close(ch)
		delete(p.pending, k)
	}
}

// peerKey is the context key of the connection's *Peer.
type peerKey struct{}

// PeerFrom returns the client of the connection ctx belongs to (the ctx
// given to Service.Initialize or to a Handler), or nil outside a
// connection.
func PeerFrom(ctx context.Context) *Peer {
	p, _ := ctx.Value(peerKey{}).(*Peer)
	return p
}
