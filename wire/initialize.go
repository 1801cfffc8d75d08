package wire

// InitializeResult is the result of initialize in LSP mode (SPEC §1).
type InitializeResult struct {
	Capabilities Capabilities `json:"capabilities"`
	ServerInfo   ServerInfo   `json:"serverInfo"`
	// Limits is every limit of SPEC §2 by its wire name.
	Limits map[string]int64 `json:"limits"`
	// Roots are the resolved workspace roots; relative paths resolve
	// against the first.
	Roots      []string `json:"roots"`
	ScratchDir string   `json:"scratchDir"`
	// Sandbox states the policy in force (SPEC §14).
	Sandbox SandboxState `json:"sandbox"`
}

// Capabilities is InitializeResult.capabilities: what the server offers.
type Capabilities struct {
	Tools ToolsCapability `json:"tools"`
	// TextDocumentSync is LSP's document sync the server takes (SPEC §15);
	// absent on the MCP face.
	TextDocumentSync *TextDocumentSync `json:"textDocumentSync,omitempty"`
	// PositionEncoding is the LSP 3.17 position encoding negotiated
	// ("utf-8", "utf-16", "utf-32"; SPEC §15).
	PositionEncoding string `json:"positionEncoding,omitempty"`
}

// TextDocumentSync is LSP's TextDocumentSyncOptions as toolrpc offers it:
// open and close, incremental changes (2), and save.
type TextDocumentSync struct {
	OpenClose bool `json:"openClose"`
	Change    int  `json:"change"`
	Save      bool `json:"save"`
}

// ToolsCapability is capabilities.tools: the tool methods, sorted by name.
type ToolsCapability struct {
	Methods []string `json:"methods"`
}

// ServerInfo names the server and its version.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}
