package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/rpc"
)

// toolJSON runs a grep or glob call and returns its result or error as JSON.
func toolJSON(t *testing.T, s *Session, method string, params map[string]any) string {
	t.Helper()
	raw, err := json.Marshal(params)
	require.NoError(t, err)
	call := rpc.NewCall(method, json.RawMessage(`1`), raw, nil)
	defer call.Replied()
	var res any
	if method == "tools/glob" {
		res, err = globCall(context.Background(), s, call)
	} else {
		res, err = grepCall(context.Background(), s, call)
	}
	if err != nil {
		e := rpc.AsError(err)
		return fmt.Sprintf("error %d %v", e.Code, e.Data)
	}
	b, err := json.Marshal(res)
	require.NoError(t, err)
	return string(b)
}

// tableQueries are the calls the tool-level differential test compares.
var tableQueries = []struct {
	method string
	params map[string]any
}{
	{"tools/grep", map[string]any{"pattern": "x"}},
	{"tools/grep", map[string]any{"pattern": "x", "outputMode": "count", "headLimit": 5000}},
	{"tools/grep", map[string]any{"pattern": "[xy]", "outputMode": "filesWithMatches", "headLimit": 5000, "offset": 2}},
	{"tools/grep", map[string]any{"pattern": "y", "outputMode": "content", "context": 1, "headLimit": 7}},
	{"tools/grep", map[string]any{"pattern": "x", "glob": "*.go"}},
	{"tools/grep", map[string]any{"pattern": "x", "glob": "src/**", "outputMode": "count", "headLimit": 5000}},
	{"tools/grep", map[string]any{"pattern": "x", "path": "src"}},
	{"tools/grep", map[string]any{"pattern": "x", "path": "vendor", "outputMode": "count"}},
	{"tools/glob", map[string]any{"pattern": "**"}},
	{"tools/glob", map[string]any{"pattern": "**/*.go", "limit": 3, "offset": 1}},
	{"tools/glob", map[string]any{"pattern": "src/**/*.txt"}},
	{"tools/glob", map[string]any{"pattern": "**", "path": "src/a"}},
}

// TestGrepGlobTableMatchesCold changes a workspace at random and requires
// every grep and glob answered from the resident file table to equal,
// byte for byte, the answer of a session that walks every call.
func TestGrepGlobTableMatchesCold(t *testing.T) {
	root := t.TempDir()
	warm, err := NewSession(Config{Root: root, DataDir: t.TempDir(), SessionID: "warm"}, &protocol.InitializeParams{})
	require.NoError(t, err)
	t.Cleanup(warm.files.Close)
	t.Cleanup(warm.index.Close)
	cold, err := NewSession(Config{Root: root, DataDir: t.TempDir(), SessionID: "cold"}, &protocol.InitializeParams{})
	require.NoError(t, err)
	t.Cleanup(cold.index.Close)
	cold.files.Close()
	cold.files = nil
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	dirs := []string{"", "src", "src/a", "src/b", "vendor", "vendor/m", "docs"}
	names := []string{"a.go", "b.go", "c.txt", "d.log", "e.md"}
	root = warm.roots.First()
	for step := range 60 {
		for range 1 + r.Intn(5) {
			p := filepath.Join(root, dirs[r.Intn(len(dirs))], names[r.Intn(len(names))])
			switch r.Intn(6) {
			case 0, 1, 2:
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("x\ny\n", 1+r.Intn(4))), 0o644))
				mt := time.Unix(1700000000+int64(r.Intn(5))*60, 0)
				require.NoError(t, os.Chtimes(p, mt, mt))
			case 3:
				_ = os.Remove(p)
			case 4:
				rules := []string{"vendor/\n", "*.log\n", "", "src/b/\n!src/b/a.go\n", "*.md\n"}
				_ = os.WriteFile(filepath.Join(root, ".gitignore"), []byte(rules[r.Intn(len(rules))]), 0o644)
			case 5:
				_ = os.RemoveAll(filepath.Join(root, dirs[1+r.Intn(len(dirs)-1)]))
			}
		}
		for _, q := range tableQueries {
			require.Equal(t, toolJSON(t, cold, q.method, q.params), toolJSON(t, warm, q.method, q.params),
				"step %d: %s %v", step, q.method, q.params)
		}
	}
	st, ok := warm.files.Stats(root)
	require.True(t, ok)
	require.Equal(t, "live", st.State, "the warm session answered from its table")
}
