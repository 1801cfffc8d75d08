package client

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrClosed is wrapped by the error of every call that could not complete
// because the connection ended: the server's output ended or was not a
// valid frame, or Close was called.
var ErrClosed = errors.New("connection closed")

// CodeRequestCancelled is the JSON-RPC code of a cancelled call's reply
// (LSP RequestCancelled; data.code CANCELLED).
const CodeRequestCancelled = -32800

// Error is an error reply from the server.
type Error struct {
	// Code is the JSON-RPC error code (-32602, -32001, -32800, ...).
	Code int64 `json:"code"`
	// Message is the server's human-readable message.
	Message string `json:"message"`
	// Data is the error's data member as sent, or nil: for a tool failure
	// an object with the SPEC §10 code; for a cancelled or timed-out
	// tools/bash the partial result.
	Data json.RawMessage `json:"data,omitempty"`
	// Kind is data.code (SPEC §10: NOT_FOUND, CANCELLED, TIMEOUT, ...), or
	// "" when the reply has none.
	Kind string `json:"-"`

	// cause is the context error of a call cancelled through its context.
	cause error
}

func (e *Error) Error() string {
	if e.Kind != "" {
		return fmt.Sprintf("toolrpc error %d %s: %s", e.Code, e.Kind, e.Message)
	}
	return fmt.Sprintf("toolrpc error %d: %s", e.Code, e.Message)
}

// Unwrap returns the context's error when the call was cancelled through
// its context, so errors.Is(err, context.Canceled) holds; else nil.
func (e *Error) Unwrap() error { return e.cause }

// setKind fills Kind from Data.
func (e *Error) setKind() {
	var d struct {
		Code string `json:"code"`
	}
	if len(e.Data) > 0 && e.Data[0] == '{' && json.Unmarshal(e.Data, &d) == nil {
		e.Kind = d.Code
	}
}
