// Command toolrpc serves an AI agent's tools over LSP-framed JSON-RPC on
// stdio, bounding every result (docs/protocol.md is the contract). With "call" it makes one call
// and prints the result, for humans and scripts; with "mcp" it serves the
// same tools as an MCP server. Its flags are package
// cli's.
//
// Usage:
//
//	toolrpc [--root DIR] [--data-dir DIR] [--session ID] [--log-file FILE]
//	toolrpc call METHOD [JSON | -]   (- reads the params from stdin)
//	toolrpc mcp [--root DIR ...] [--data-dir DIR] [--session ID] [--log-file FILE]
//	toolrpc --version
package main

import (
	"os"

	"github.com/toolrpc/toolrpc/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
