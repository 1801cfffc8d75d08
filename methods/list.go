package methods

import (
	"context"
	"encoding/json"

	"github.com/toolrpc/toolrpc/rpc"
)

// ToolInfo is one entry of the tools/list result.
type ToolInfo struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// List returns the tool definitions, sorted by name.
func List() []ToolInfo {
	out := []ToolInfo{}
	for _, m := range table {
		if !m.Tool {
			continue
		}
		out = append(out, ToolInfo{Name: m.Name, Description: m.Describe(LSP), InputSchema: m.InputSchema, OutputSchema: m.OutputSchema})
	}
	return out
}

func toolNames() []string {
	names := []string{}
	for _, t := range List() {
		names = append(names, t.Name)
	}
	return names
}

// listMethod is tools/list.
func listMethod() Method {
	return Method{
		Name: "tools/list",
		Call: func(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
			return List(), nil
		},
	}
}
