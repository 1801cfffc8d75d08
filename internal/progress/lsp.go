package progress

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"
)

// Client is the connection an LSP sink speaks to; *rpc.Peer is one.
type Client interface {
	// Call sends a request and waits for its reply until ctx ends.
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
	// Notify sends a notification.
	Notify(method string, params any) error
}

// LSP is the Sink of a client that declared
// capabilities.window.workDoneProgress: each build gets a token of its own
// (window/workDoneProgress/create), then $/progress begin, report and end.
type LSP struct {
	c    Client
	next atomic.Int64
}

// NewLSP returns the LSP sink speaking to c.
func NewLSP(c Client) *LSP { return &LSP{c: c} }

// LSP work-done progress values (LSP 3.15). Percentage is a pointer: begin
// sends 0, a report without a known total leaves it out.
type (
	createParams struct {
		Token string `json:"token"`
	}
	progressParams struct {
		Token string `json:"token"`
		Value any    `json:"value"`
	}
	beginValue struct {
		Kind        string `json:"kind"`
		Title       string `json:"title"`
		Cancellable bool   `json:"cancellable"`
		Message     string `json:"message"`
		Percentage  *int   `json:"percentage,omitempty"`
	}
	reportValue struct {
		Kind       string `json:"kind"`
		Message    string `json:"message"`
		Percentage *int   `json:"percentage,omitempty"`
	}
	endValue struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
)

// Begin asks the client to create a token and, once it has replied, sends
// the begin. A client that answers with an error, or does not answer
// before ctx ends, gets nothing more for the token.
func (l *LSP) Begin(ctx context.Context, s Status) Task {
	token := "toolrpc/progress/" + strconv.FormatInt(l.next.Add(1), 10)
	if _, err := l.c.Call(ctx, "window/workDoneProgress/create", createParams{Token: token}); err != nil {
		return nil
	}
	t := &lspTask{c: l.c, token: token}
	zero := 0
	if t.send(beginValue{Kind: "begin", Title: s.Title, Message: s.Message, Percentage: &zero}) != nil {
		return nil
	}
	return t
}

// lspTask sends the $/progress of one token. A failed write (the client
// is gone) is not retried: the session is ending.
type lspTask struct {
	c     Client
	token string
}

func (t *lspTask) send(v any) error {
	return t.c.Notify("$/progress", progressParams{Token: t.token, Value: v})
}

// Report sends a report, with a percentage when the total is known.
func (t *lspTask) Report(s Status) {
	v := reportValue{Kind: "report", Message: s.Message}
	if s.Percent >= 0 {
		v.Percentage = &s.Percent
	}
	_ = t.send(v)
}

// End sends the end.
func (t *lspTask) End(s Status) { _ = t.send(endValue{Kind: "end", Message: s.Message}) }
