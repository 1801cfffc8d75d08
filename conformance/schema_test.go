package conformance

// SPEC §1, §12: tools/list's outputSchema is generated from the type each
// result is encoded from, and both faces list the same one. The harnesses
// hold every result the suite receives to it: the LSP harness every reply to
// a tools/* request (a result, or the error object), the MCP harness every
// tools/call result's structuredContent. A violation fails the test that
// received it.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/client"
)

// outputSchemas are the resolved outputSchemas of the server under test by
// method name ("tools/read"), as its LSP tools/list gives them; loadSchemas
// fills them before the tests run.
var (
	outputSchemas    map[string]*jsonschema.Resolved
	outputSchemasRaw map[string]json.RawMessage
)

// listedTool is one tools/list entry as the suite reads it.
type listedTool struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// loadSchemas asks a server of its own for tools/list (in TestMain, before
// any test's server runs) and resolves each tool's outputSchema.
func loadSchemas() error {
	dir, err := os.MkdirTemp("", "toolrpc-schemas-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(bin, "--data-dir", dir)
	cmd.Dir = dir
	conn, err := client.Start(cmd, client.Options{})
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, nil); err != nil {
		return err
	}
	var tools []listedTool
	if err := conn.Call(ctx, "tools/list", nil, &tools); err != nil {
		return err
	}
	outputSchemas, outputSchemasRaw = map[string]*jsonschema.Resolved{}, map[string]json.RawMessage{}
	for _, tool := range tools {
		rs, err := resolveSchema(tool.OutputSchema)
		if err != nil {
			return fmt.Errorf("%s: outputSchema: %w", tool.Name, err)
		}
		outputSchemas[tool.Name], outputSchemasRaw[tool.Name] = rs, tool.OutputSchema
	}
	return nil
}

func resolveSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// schemaCheck collects the results a server sent that do not fit their
// tool's outputSchema.
type schemaCheck struct {
	mu         sync.Mutex
	violations []string
}

// check validates raw, a result (or error object) of method, if method is a
// listed tool.
func (c *schemaCheck) check(method string, raw json.RawMessage) {
	rs := outputSchemas[method]
	if rs == nil || len(raw) == 0 {
		return
	}
	var v any
	err := json.Unmarshal(raw, &v)
	if err == nil {
		err = rs.Validate(v)
	}
	if err != nil {
		c.mu.Lock()
		c.violations = append(c.violations, fmt.Sprintf("%s: %v\n  result: %s", method, err, tail(string(raw), 2000)))
		c.mu.Unlock()
	}
}

// report fails t with every violation seen.
func (c *schemaCheck) report(t testing.TB) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range c.violations {
		t.Errorf("a result does not fit its tool's outputSchema (SPEC §1): %s", v)
	}
}

// TestList_OutputSchemaSameOnBothFaces: LSP tools/list lists an outputSchema
// beside every inputSchema, MCP tools/list lists the same one for the same
// tool, and the schemas the harnesses validate against reject what the
// encoder never sends. Checks SPEC §1 (tools/list) and §12.
func TestList_OutputSchemaSameOnBothFaces(t *testing.T) {
	s := start(t)
	lsp := decode[[]listedTool](t, s.call(t, "tools/list", nil))
	require.NotEmpty(t, lsp)
	m := mcpStart(t, mcpOptions{})
	require.Len(t, m.tools, len(lsp), "both faces list the same tools")
	for _, tool := range lsp {
		require.NotEmpty(t, tool.OutputSchema, "%s has an outputSchema", tool.Name)
		mt := m.tools[toolNameMCP(tool.Name)]
		require.NotNil(t, mt, "MCP lists %s", tool.Name)
		got, err := json.Marshal(mt.OutputSchema)
		require.NoError(t, err)
		require.JSONEq(t, string(tool.OutputSchema), string(got), "%s: the same outputSchema on both faces", tool.Name)
		require.JSONEq(t, string(outputSchemasRaw[tool.Name]), string(tool.OutputSchema), "%s: the harness validates against what tools/list lists", tool.Name)
		var in map[string]any
		require.NoError(t, json.Unmarshal(tool.InputSchema, &in))
		require.Equal(t, false, in["additionalProperties"], "%s: the input schema refuses unknown members, as the decoder does", tool.Name)
	}
	// The check can fail: a member the result type does not have, or a
	// missing required one, is a violation.
	var c schemaCheck
	c.check("tools/glob", json.RawMessage(`{"matches":[],"count":0,"truncated":false}`))
	require.Empty(t, c.violations)
	c.check("tools/glob", json.RawMessage(`{"matches":[],"count":0,"truncated":false,"bogus":1}`))
	c.check("tools/read", json.RawMessage(`{"path":"a"}`))
	c.check("tools/bash", json.RawMessage(`{"code":-32001,"message":"m","data":{"code":"NOPE"}}`))
	require.Len(t, c.violations, 3)
}

// toolNameMCP is the MCP name of an LSP tool method ("tools/read" -> "read",
// "tools/process/start" -> "process_start").
func toolNameMCP(method string) string {
	return strings.ReplaceAll(strings.TrimPrefix(method, "tools/"), "/", "_")
}
