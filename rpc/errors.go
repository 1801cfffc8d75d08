package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolrpc/toolrpc/wire"
)

// JSON-RPC error codes the server sends (SPEC §10).
const (
	CodeParseError           = -32700
	CodeInvalidRequest       = -32600
	CodeMethodNotFound       = -32601
	CodeInvalidParams        = -32602
	CodeInternalError        = -32603
	CodeServerNotInitialized = -32002
	CodeToolFailure          = -32001
	CodeRequestCancelled     = -32800
)

// Stable data.code strings of SPEC §10, as package wire defines them.
const (
	InvalidArgument  = wire.InvalidArgument
	Cancelled        = wire.Cancelled
	BinaryContent    = wire.BinaryContent
	NotFound         = wire.NotFound
	IsDirectory      = wire.IsDirectory
	PermissionDenied = wire.PermissionDenied
	Timeout          = wire.Timeout
	StaleTag         = wire.StaleTag
	LineNotVisible   = wire.LineNotVisible
	IOError          = wire.IOError
	// SandboxDenied and SandboxUnavailable are §14's.
	SandboxDenied      = wire.SandboxDenied
	SandboxUnavailable = wire.SandboxUnavailable
	// EditorUnsaved and EditNotApplied are §15's.
	EditorUnsaved  = wire.EditorUnsaved
	EditNotApplied = wire.EditNotApplied
)

// Error is the one wire error of toolrpc. Kind is the data.code of SPEC §10
// (empty for the plain protocol errors); Data, when set, must marshal to a JSON
// object, into which "code" is merged.
type Error struct {
	Code    int64
	Kind    string
	Message string
	Data    any

	cause error // what the message's %w verbs wrapped, for errors.Is and As
}

// Unwrap returns the error Errorf's %w wrapped, or nil.
func (e *Error) Unwrap() error { return e.cause }

// Error implements error.
func (e *Error) Error() string {
	if e.Kind != "" {
		return e.Kind + ": " + e.Message
	}
	return e.Message
}

// Errorf returns a tool error of the given data.code. The JSON-RPC code follows
// from the kind: INVALID_ARGUMENT is -32602, CANCELLED -32800, the rest -32001.
// As with fmt.Errorf, a %w verb wraps its operand: Unwrap returns it.
func Errorf(kind, format string, args ...any) *Error {
	w := fmt.Errorf(format, args...)
	e := &Error{Code: codeOf(kind), Kind: kind, Message: w.Error()}
	switch w.(type) {
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
		e.cause = w
	}
	return e
}

// WithData returns a copy of e carrying data, which must marshal to a JSON object.
func (e *Error) WithData(data any) *Error {
	c := *e
	c.Data = data
	return &c
}

func codeOf(kind string) int64 {
	switch kind {
	case InvalidArgument:
		return CodeInvalidParams
	case Cancelled:
		return CodeRequestCancelled
	default:
		return CodeToolFailure
	}
}

// Object returns e as the JSON-RPC error object both faces send: LSP mode as
// the error member, MCP as an isError result's structuredContent.
func (e *Error) Object() (wire.ErrorObject, error) {
	data, err := e.wireData()
	return wire.ErrorObject{Code: e.Code, Message: e.Message, Data: data}, err
}

// wireData renders the data member: Data's object with "code" merged in. It
// is the one place that merge is made.
func (e *Error) wireData() (json.RawMessage, error) {
	if e.Kind == "" && e.Data == nil {
		return nil, nil
	}
	obj := map[string]json.RawMessage{}
	if e.Data != nil {
		b, err := marshal(e.Data)
		if err != nil {
			return nil, fmt.Errorf("marshal error data: %w", err)
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			return nil, fmt.Errorf("error data is not an object: %w", err)
		}
	}
	if e.Kind != "" {
		obj["code"], _ = json.Marshal(e.Kind)
	}
	return marshal(obj)
}

// AsError converts any error a handler returns into the wire error: an *Error
// anywhere in the chain keeps its code; a cancelled or expired context is
// CANCELLED (this is the one place that mapping is made); anything else is an
// IO_ERROR tool failure. The result wraps err.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeRequestCancelled, Kind: Cancelled, Message: err.Error(), cause: err}
	}
	return &Error{Code: CodeToolFailure, Kind: IOError, Message: err.Error(), cause: err}
}
