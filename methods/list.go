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
	// Family and ModelName are set on a dialect tool (SPEC §16): its family
	// and the name the model knows it by; Name is the method to call.
	Family    string `json:"family,omitempty"`
	ModelName string `json:"modelName,omitempty"`
}

// List returns the tool definitions of toolrpc's own tools, sorted by name.
func List() []ToolInfo { return ListToolset(DefaultToolset) }

// ListToolset returns the tool definitions ts offers (Toolset.Offer).
func ListToolset(ts Toolset) []ToolInfo {
	out := []ToolInfo{}
	for _, o := range ts.Offer() {
		m := o.Method
		t := ToolInfo{Name: m.Name, Description: m.Describe(LSP), InputSchema: m.InputSchema, OutputSchema: m.OutputSchema}
		if m.Family != "" {
			t.Family, t.ModelName = m.Family, o.Name
		}
		out = append(out, t)
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
			return ListToolset(s.Toolset), nil
		},
	}
}
