package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolrpc/toolrpc/methods"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// toolFace is what MCP adds to a tool method: its title and annotations.
type toolFace struct {
	title       string
	readOnly    bool
	destructive bool
	idempotent  bool
	openWorld   bool
}

// faces maps each MCP tool name to its face. Read, Grep and Glob only read
// inside the roots; Bash runs anything (network included); Edit and Write
// change files in place, and writing the same content twice is no change.
var faces = map[string]toolFace{
	"read":  {title: "Read file", readOnly: true, idempotent: true},
	"grep":  {title: "Search file contents", readOnly: true, idempotent: true},
	"glob":  {title: "Find files", readOnly: true, idempotent: true},
	"bash":  {title: "Run a shell command", destructive: true, openWorld: true},
	"edit":  {title: "Edit file lines", destructive: true},
	"write": {title: "Write file", destructive: true, idempotent: true},

	"process_start":  {title: "Start a process", destructive: true, openWorld: true},
	"process_read":   {title: "Read a process's output", readOnly: true},
	"process_write":  {title: "Write to a process", destructive: true, openWorld: true},
	"process_signal": {title: "Signal a process", destructive: true},
	"process_list":   {title: "List processes", readOnly: true},
}

// toolName is the MCP name of method ("tools/read" -> "read",
// "tools/process/start" -> "process_start").
func toolName(method string) string {
	return strings.ReplaceAll(strings.TrimPrefix(method, "tools/"), "/", "_")
}

// tools returns the MCP tools toolset offers (SPEC §16; nil: toolrpc's
// own), with the methods' descriptions, input and output schemas. A tool
// method without a face is a programming error.
func tools(toolset methods.Toolset) ([]*mcp.Tool, []methods.Method) {
	var ts []*mcp.Tool
	var ms []methods.Method
	if toolset == nil {
		toolset = methods.DefaultToolset
	}
	for _, o := range toolset.Offer() {
		m, name := o.Method, o.Name
		f, ok := faces[name]
		if m.Family != "" {
			f, ok = dialectFaces[m.Name]
		}
		if !ok {
			panic(fmt.Sprintf("mcpserve: tool method %s has no MCP face", m.Name))
		}
		ts = append(ts, &mcp.Tool{
			Name:         name,
			Title:        f.title,
			Description:  m.Describe(methods.MCP),
			InputSchema:  m.InputSchema,
			OutputSchema: outputSchema(m),
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

// handler runs method m, the tool called name, for one tools/call.
func (s *server) handler(name string, m methods.Method) mcp.ToolHandler {
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
		// The call carries the MCP name: its messages speak MCP's words.
		call := rpc.NewCall(name, id, req.Params.Arguments, notify)
		v, err := m.Call(ctx, sess, call)
		defer call.Replied() // as the SDK sends the result
		if err != nil {
			return errorResult(name, err), nil
		}
		if d, ok := v.(methods.DialectReply); ok {
			return dialectResult(d), nil
		}
		return okResult(name, v)
	}
}

// okResult is the result of a call that succeeded.
func okResult(tool string, v any) (*mcp.CallToolResult, error) {
	b, err := wire.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: marshal result: %w", tool, err)
	}
	if blocks, ok := renderProcess(v); ok {
		res := &mcp.CallToolResult{StructuredContent: json.RawMessage(b)}
		for _, t := range blocks {
			res.Content = append(res.Content, &mcp.TextContent{Text: t})
		}
		return res, nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: textFor(v)}},
		StructuredContent: json.RawMessage(b),
	}, nil
}

// errorResult is the isError result of a failed call: the LSP-mode error
// object as structuredContent and one line naming its data.code. A bash
// TIMEOUT (or CANCELLED) carries its partial output in a second text block.
func errorResult(tool string, err error) *mcp.CallToolResult {
	e := rpc.AsError(err)
	obj, oErr := e.Object()
	if oErr != nil {
		e = rpc.Errorf(rpc.IOError, "%s: marshal error: %v", tool, oErr)
		obj, _ = e.Object()
	}
	b, _ := wire.Marshal(obj)
	res := &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: oneLine(e.Error())}},
		StructuredContent: json.RawMessage(b),
	}
	if partial, ok := e.Data.(*wire.BashResult); ok {
		if text := renderBash(partial); text != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: text})
		}
	}
	return res
}

// oneLine folds s onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// outputSchema is m's output schema on MCP: none for a dialect tool, whose
// result is the text the model reads.
func outputSchema(m methods.Method) any {
	if m.Family != "" {
		return nil
	}
	return m.OutputSchema
}
