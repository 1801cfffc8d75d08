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
