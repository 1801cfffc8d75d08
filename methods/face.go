package methods

// Face is the protocol face a tool description or error message is written
// for. Each face names the tools and the progress stream in its own words, so
// an MCP host never reads LSP method names ($/progress, tools/edit) and the
// words come from one source per face.
type Face int

// The two faces: LSP-style JSON-RPC (the zero value) and MCP.
const (
	LSP Face = iota
	MCP
)

// Tool is what the face calls the tool named name ("edit"): "tools/edit" on
// LSP, "edit" on MCP.
func (f Face) Tool(name string) string {
	if f == MCP {
		return name
	}
	return "tools/" + name
}

// Progress says how the face streams a running command's output.
func (f Face) Progress() string {
	if f == MCP {
		return "notifications/progress messages (when the call carries a progressToken)"
	}
	return "$/progress chunks (token: workDoneToken, else the request id)"
}
