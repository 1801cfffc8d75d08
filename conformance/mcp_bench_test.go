package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// mcpBenchServer is one MCP server measured by the MCP benchmarks.
type mcpBenchServer struct {
	name string
	cmd  func(root string) *exec.Cmd
	read func(root string) *mcp.CallToolParams // a read of root/tiny.txt
}

// mcpBenchServers are toolrpc and, when $TOOLRPC_MCP_PEER names one (e.g.
// node_modules/.bin/mcp-server-filesystem), a peer MCP server started with
// the root as its last argument and read through its read_text_file tool.
func mcpBenchServers(b *testing.B) []mcpBenchServer {
	servers := []mcpBenchServer{{
		name: "toolrpc",
		cmd: func(root string) *exec.Cmd {
			return exec.Command(bin, "mcp", "--root", root, "--data-dir", b.TempDir())
		},
		read: func(string) *mcp.CallToolParams {
			return &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "tiny.txt"}}
		},
	}}
	if peer := os.Getenv("TOOLRPC_MCP_PEER"); peer != "" {
		f := strings.Fields(peer)
		servers = append(servers, mcpBenchServer{
			name: filepath.Base(f[0]),
			cmd:  func(root string) *exec.Cmd { return exec.Command(f[0], append(f[1:], root)...) },
			read: func(root string) *mcp.CallToolParams {
				return &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": filepath.Join(root, "tiny.txt")}}
			},
		})
	}
	return servers
}

// mcpBenchConnect starts cmd and initializes it with a client offering no
// roots (so each server keeps the root it was given).
func mcpBenchConnect(b *testing.B, cmd *exec.Cmd) *mcp.ClientSession {
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(b, err)
	return cs
}

func mcpBenchRoot(b *testing.B) string {
	root := b.TempDir()
	require.NoError(b, os.WriteFile(filepath.Join(root, "tiny.txt"), []byte("hello\nworld\n"), 0o644))
	return root
}

// BenchmarkMCPStartToInitialize measures process start → initialize result.
func BenchmarkMCPStartToInitialize(b *testing.B) {
	for _, s := range mcpBenchServers(b) {
		b.Run(s.name, func(b *testing.B) {
			root := mcpBenchRoot(b)
			for i := 0; i < b.N; i++ {
				cs := mcpBenchConnect(b, s.cmd(root))
				b.StopTimer()
				require.NoError(b, cs.Close())
				b.StartTimer()
			}
		})
	}
}

// BenchmarkMCPReadTiny measures one tools/call read of a two-line file →
// result, sequentially on one connection.
func BenchmarkMCPReadTiny(b *testing.B) {
	for _, s := range mcpBenchServers(b) {
		b.Run(s.name, func(b *testing.B) {
			root := mcpBenchRoot(b)
			cs := mcpBenchConnect(b, s.cmd(root))
			defer cs.Close()
			p := s.read(root)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := cs.CallTool(context.Background(), p)
				require.NoError(b, err)
				require.False(b, res.IsError)
			}
		})
	}
}

// BenchmarkBashTrueLSPvsMCP measures a tools/bash call of `true` → result in
// LSP mode and in MCP mode (with and without a progress token).
func BenchmarkBashTrueLSPvsMCP(b *testing.B) {
	b.Run("lsp", func(b *testing.B) {
		s := start(b)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s.call(b, "tools/bash", map[string]any{"command": "true"})
		}
	})
	for _, token := range []any{nil, "tok"} {
		name := "mcp"
		if token != nil {
			name = "mcp-progress"
		}
		b.Run(name, func(b *testing.B) {
			cs := mcpBenchConnect(b, exec.Command(bin, "mcp", "--root", b.TempDir(), "--data-dir", b.TempDir()))
			defer cs.Close()
			p := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "true"}}
			if token != nil {
				p.SetProgressToken(token)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := cs.CallTool(context.Background(), p)
				require.NoError(b, err)
				require.False(b, res.IsError)
			}
		})
	}
}
