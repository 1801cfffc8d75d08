package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// htmlText is a line full of the characters encoding/json escapes for HTML.
const htmlText = "if a < b && c > d {"

// requireNoHTMLEscapes fails when the JSON text raw writes <, > or & as
// \u003c, \u003e or \u0026, or lacks htmlText's characters as they are.
func requireNoHTMLEscapes(t *testing.T, what string, raw []byte) {
	t.Helper()
	for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
		require.NotContains(t, strings.ToLower(string(raw)), esc, "%s: %s", what, raw)
	}
	require.True(t, json.Valid(raw), "%s: %s", what, raw)
}

// TestOutput_NoHTMLEscapes checks SPEC §1: every output is UTF-8 JSON in one
// encoding, on both faces: grep's text, read's content, bash's stdout and
// an error's message carry <, > and & as they are, never \u003c, \u003e or
// \u0026.
func TestOutput_NoHTMLEscapes(t *testing.T) {
	calls := []struct {
		method, tool string
		args         map[string]any
	}{
		{"tools/grep", "grep", map[string]any{"pattern": "a < b", "outputMode": "content"}},
		{"tools/read", "read", map[string]any{"path": "html.txt"}},
		{"tools/bash", "bash", map[string]any{"command": "cat html.txt"}},
		{"tools/read", "read", map[string]any{"path": "no<such>&file"}},
	}
	t.Run("lsp", func(t *testing.T) {
		s := start(t)
		require.NoError(t, os.WriteFile(filepath.Join(s.Root, "html.txt"), []byte(htmlText+"\n"), 0o644))
		for _, c := range calls {
			f := s.wait(t, s.send(t, c.method, c.args))
			requireNoHTMLEscapes(t, c.method, f.Raw)
			if f.Error != nil {
				require.Contains(t, string(f.Raw), "no<such>&file")
			} else {
				require.Contains(t, string(f.Raw), "a < b &&")
			}
		}
	})
	t.Run("mcp", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "html.txt"), []byte(htmlText+"\n"), 0o644))
		cmd := exec.Command(bin, "mcp", "--root", dir, "--data-dir", t.TempDir())
		cmd.Dir = dir
		in, err := cmd.StdinPipe()
		require.NoError(t, err)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
		lines := bufio.NewScanner(out)
		lines.Buffer(nil, 1<<24)
		// reply sends one request and returns the raw line of its response.
		reply := func(id int, method string, params any) []byte {
			b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
			require.NoError(t, err)
			_, err = in.Write(append(b, '\n'))
			require.NoError(t, err)
			for lines.Scan() {
				var m struct {
					ID json.RawMessage `json:"id"`
				}
				if json.Unmarshal(lines.Bytes(), &m) == nil && string(m.ID) == fmt.Sprint(id) {
					return append([]byte(nil), lines.Bytes()...)
				}
			}
			t.Fatalf("no reply to %s: %v", method, lines.Err())
			return nil
		}
		reply(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "conformance", "version": "1"}})
		_, err = in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}` + "\n"))
		require.NoError(t, err)
		for i, c := range calls {
			raw := reply(2+i, "tools/call", map[string]any{"name": c.tool, "arguments": c.args})
			requireNoHTMLEscapes(t, c.tool, raw)
			if strings.Contains(string(raw), `"isError":true`) {
				require.Contains(t, string(raw), "no<such>&file")
			} else {
				require.Contains(t, string(raw), "a < b &&")
			}
		}
	})
}
