package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolrpc/toolrpc/methods"
	"github.com/toolrpc/toolrpc/rpc"
)

// toolFace is what MCP adds to a tool method: its title, annotations and
// result schema.
type toolFace struct {
	title        string
	readOnly     bool
	destructive  bool
	idempotent   bool
	openWorld    bool
	resultSchema string
}

// faces maps each MCP tool name to its face. Read, Grep and Glob only read
// inside the roots; Bash runs anything (network included); Edit and Write
// change files in place, and writing the same content twice is no change.
var faces = map[string]toolFace{
	"read":  {title: "Read file", readOnly: true, idempotent: true, resultSchema: readResultSchema},
	"grep":  {title: "Search file contents", readOnly: true, idempotent: true, resultSchema: grepResultSchema},
	"glob":  {title: "Find files", readOnly: true, idempotent: true, resultSchema: globResultSchema},
	"bash":  {title: "Run a shell command", destructive: true, openWorld: true, resultSchema: bashResultSchema},
	"edit":  {title: "Edit file lines", destructive: true, resultSchema: editResultSchema},
	"write": {title: "Write file", destructive: true, idempotent: true, resultSchema: writeResultSchema},
}

// toolName is the MCP name of method ("tools/read" -> "read").
func toolName(method string) string { return strings.TrimPrefix(method, "tools/") }

// tools returns the MCP tools of the registry's tool methods, with the
// methods' descriptions and input schemas. A tool method without a face is
// a programming error.
func tools() ([]*mcp.Tool, []methods.Method) {
	var ts []*mcp.Tool
	var ms []methods.Method
	for _, m := range methods.All() {
		if !m.Tool {
			continue
		}
		name := toolName(m.Name)
		f, ok := faces[name]
		if !ok {
			panic(fmt.Sprintf("mcpserve: tool method %s has no MCP face", m.Name))
		}
		ts = append(ts, &mcp.Tool{
			Name:         name,
			Title:        f.title,
			Description:  m.Description,
			InputSchema:  m.InputSchema,
			OutputSchema: outputSchema(f.resultSchema),
			Annotations: &mcp.ToolAnnotations{
				Title:           f.title,
				ReadOnlyHint:    f.readOnly,
				DestructiveHint: &f.destructive,
				IdempotentHint:  f.idempotent,
				OpenWorldHint:   &f.openWorld,
			},
		})
		ms = append(ms, m)
	}
	return ts, ms
}

// handler runs method m for one tools/call.
func (s *server) handler(m methods.Method) mcp.ToolHandler {
	name := toolName(m.Name)
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !s.calls.enter() {
			return errorResult(name, rpc.Errorf(rpc.Cancelled, "%s: the server is shutting down", name)), nil
		}
		defer s.calls.leave()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.ctx, cancel)
		defer stop()

		sess, ask, err := s.sessions.get(req)
		switch {
		case ask != nil:
			return ask, nil
		case err != nil:
			return errorResult(name, err), nil
		}
		notify := func(string, any) error { return nil }
		token := req.Params.GetProgressToken()
		id := json.RawMessage("null")
		if token != nil {
			key := tokenKey(token)
			id = json.RawMessage(key)
			p := startProgress(ctx, token, req.Session.NotifyProgress, func() bool { return s.filter.cancelledToken(key) })
			defer p.close()
			notify = p.rpcNotify
		}
		v, err := m.Call(ctx, sess, rpc.NewCall(m.Name, id, req.Params.Arguments, notify))
		if err != nil {
			return errorResult(name, err), nil
		}
		return okResult(name, v)
	}
}

// okResult is the result of a call that succeeded.
func okResult(tool string, v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: marshal result: %w", tool, err)
	}
	text, err := textFor(tool, b)
	if err != nil {
		return nil, fmt.Errorf("%s: render result: %w", tool, err)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(b),
	}, nil
}

// errorResult is the isError result of a failed call: the LSP-mode error
// object as structuredContent and one line naming its data.code. A bash
// TIMEOUT (or CANCELLED) carries its partial output in a second text block.
func errorResult(tool string, err error) *mcp.CallToolResult {
	e := rpc.AsError(err)
	obj := errorObject(e)
	b, mErr := json.Marshal(obj)
	if mErr != nil {
		e = rpc.Errorf(rpc.IOError, "%s: marshal error: %v", tool, mErr)
		obj = errorObject(e)
		b, _ = json.Marshal(obj)
	}
	res := &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: oneLine(e.Error())}},
		StructuredContent: json.RawMessage(b),
	}
	if tool == "bash" && e.Data != nil {
		if data, err := json.Marshal(e.Data); err == nil {
			if text, err := renderBash(data); err == nil && text != "" {
				res.Content = append(res.Content, &mcp.TextContent{Text: text})
			}
		}
	}
	return res
}

// wireError is the LSP-mode JSON-RPC error object.
type wireError struct {
	Code    int64                      `json:"code"`
	Message string                     `json:"message"`
	Data    map[string]json.RawMessage `json:"data,omitempty"`
}

// errorObject renders e as LSP mode sends it: Data's object with "code"
// (the SPEC §10 kind) merged in.
func errorObject(e *rpc.Error) wireError {
	w := wireError{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		if b, err := json.Marshal(e.Data); err == nil {
			_ = json.Unmarshal(b, &w.Data)
		}
	}
	if e.Kind != "" {
		if w.Data == nil {
			w.Data = map[string]json.RawMessage{}
		}
		w.Data["code"], _ = json.Marshal(e.Kind)
	}
	return w
}

// oneLine folds s onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
