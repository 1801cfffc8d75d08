package mcpserve

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolrpc/toolrpc/methods"
)

// dialectFaces maps each dialect tool method (SPEC §16) to its MCP face.
var dialectFaces = map[string]toolFace{
	"openai/apply_patch":  {title: "Apply a patch", destructive: true},
	"openai/shell":        {title: "Run shell commands", destructive: true, openWorld: true},
	"openai/exec_command": {title: "Start a command", destructive: true, openWorld: true},
	"openai/write_stdin":  {title: "Write to a command", destructive: true, openWorld: true},

	"anthropic/str_replace_based_edit_tool": {title: "View and edit files", destructive: true},
	"anthropic/bash":                        {title: "Run a shell command", destructive: true, openWorld: true},

	"gemini/read_file":         {title: "Read file", readOnly: true, idempotent: true},
	"gemini/write_file":        {title: "Write file", destructive: true, idempotent: true},
	"gemini/replace":           {title: "Replace text", destructive: true},
	"gemini/run_shell_command": {title: "Run a shell command", destructive: true, openWorld: true},
	"gemini/glob":              {title: "Find files", readOnly: true, idempotent: true},
	"gemini/grep_search":       {title: "Search file contents", readOnly: true, idempotent: true},
	"gemini/list_directory":    {title: "List a directory", readOnly: true, idempotent: true},
}

// dialectResult is the MCP result of a dialect tool: the text the model
// reads, flagged as an error when the dialect's result is one.
func dialectResult(d methods.DialectReply) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: d.ModelText()}}, IsError: d.ModelFailed()}
}
