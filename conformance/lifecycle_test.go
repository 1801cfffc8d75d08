package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLifecycle_RequestBeforeInitialize checks SPEC §1: a request before
// initialize is -32002.
func TestLifecycle_RequestBeforeInitialize(t *testing.T) {
	s := start(t, withoutInitialize())
	_, e := s.request(t, "tools/list", nil)
	require.NotNil(t, e)
	require.EqualValues(t, -32002, e.Code)
	// initialize still works afterwards.
	res := s.call(t, "initialize", map[string]any{"rootUri": "file://" + s.Root, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"dataDir": s.DataDir}})
	require.Contains(t, string(res), `"name":"toolrpc"`)
}

// TestLifecycle_InitializeResult checks SPEC §1, §2: the initialize result and
// its limits.
func TestLifecycle_InitializeResult(t *testing.T) {
	s := start(t)
	var init struct {
		ServerInfo struct{ Name, Version string } `json:"serverInfo"`
		Limits     map[string]int64               `json:"limits"`
		ScratchDir string                         `json:"scratchDir"`
	}
	require.NoError(t, json.Unmarshal(s.InitResult, &init))
	require.Equal(t, "toolrpc", init.ServerInfo.Name)
	require.Equal(t, s.DataDir+"/scratch/"+s.SessionID, init.ScratchDir)
	want := map[string]int64{
		"BUDGET_SEARCH_BYTES": 131072, "BUDGET_SEARCH_LINES": 4000,
		"BUDGET_SHELL_BYTES": 98304, "BUDGET_SHELL_LINES": 4000,
		"BUDGET_SHELL_ERR_BYTES": 98304, "BUDGET_SHELL_ERR_LINES": 4000,
		"MAX_LINE_CHARS": 16384, "READ_DEFAULT_LIMIT": 2000, "READ_MAX_LIMIT": 4000,
		"GREP_DEFAULT_HEAD_LIMIT": 200, "GLOB_DEFAULT_LIMIT": 100, "GLOB_MAX_LIMIT": 1000,
		"CAPTURE_MAX_BYTES": 524288, "CAPTURE_MAX_LINES": 200000, "SPILL_MAX_BYTES": 524288,
		"BASH_DEFAULT_TIMEOUT_S": 60, "BASH_MIN_TIMEOUT_S": 1, "BASH_MAX_TIMEOUT_S": 21600,
		"EDIT_MAX_BYTES": 262144, "EDIT_MAX_OPS": 200,
		"CHECKPOINT_USER_TOKENS": 20000, "CHECKPOINT_BATCH_TOKENS": 32000,
	}
	for k, v := range want {
		require.Equal(t, v, init.Limits[k], "limit %s", k)
	}
	// Nothing is created in the data dir by a session that spills nothing.
	_, err := os.Stat(init.ScratchDir)
	require.True(t, os.IsNotExist(err), "scratch dir exists before any spill")
}

// TestLifecycle_UnknownMethod checks SPEC §1, §10: an unknown method is -32601.
func TestLifecycle_UnknownMethod(t *testing.T) {
	s := start(t)
	e := s.callErr(t, "tools/nope", map[string]any{})
	require.EqualValues(t, -32601, e.Code)
	require.Contains(t, e.Message, "tools/nope")
}

// TestLifecycle_InitializeTwice checks SPEC §1: a second initialize is refused.
func TestLifecycle_InitializeTwice(t *testing.T) {
	s := start(t)
	e := s.callErr(t, "initialize", map[string]any{"capabilities": map[string]any{}})
	require.EqualValues(t, -32600, e.Code)
}

// TestLifecycle_BadSessionID checks SPEC §1, §10: a bad sessionId is
// INVALID_ARGUMENT.
func TestLifecycle_BadSessionID(t *testing.T) {
	// ".." once resolved the scratch dir to the data dir itself, so shutdown
	// would have removed the whole data dir.
	for _, id := range []string{"../escape", "..", ".", "", "a/b", strings.Repeat("x", 65)} {
		t.Run(id, func(t *testing.T) {
			s := start(t, withoutInitialize())
			marker := s.DataDir + "/keep"
			require.NoError(t, os.WriteFile(marker, []byte("x"), 0o600))
			e := s.callErr(t, "initialize", map[string]any{"rootUri": "file://" + s.Root,
				"initializationOptions": map[string]any{"dataDir": s.DataDir, "sessionId": id}})
			require.EqualValues(t, -32602, e.Code)
			require.Equal(t, "INVALID_ARGUMENT", e.Kind)
			s.stop(t)
			_, err := os.Stat(marker)
			require.NoError(t, err, "data dir content removed")
		})
	}
}

// TestLifecycle_MalformedFramesThenGoodRequest checks SPEC §1, §10: malformed
// frames are answered and the next request is served.
func TestLifecycle_MalformedFramesThenGoodRequest(t *testing.T) {
	cases := []struct {
		name     string
		raw      []byte
		wantCode int64
	}{
		{"bad json", rawFrame(`{"jsonrpc":"2.0","id":1,`), -32700},
		{"invalid utf-8", rawFrame("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\xff\"}"), -32700},
		{"batch", rawFrame(`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`), -32600},
		{"not an object", rawFrame(`42`), -32600},
		{"missing content-length", []byte("Content-Type: x\r\n\r\n"), -32600},
		{"bad content-length", []byte("Content-Length: abc\r\n\r\n"), -32600},
		{"deep nesting", rawFrame(strings.Repeat("[", 200000) + strings.Repeat("]", 200000)), -32700},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t)
			before := len(s.frames())
			s.writeRaw(tc.raw)
			res := s.call(t, "tools/list", nil) // still serving
			require.NotNil(t, res)
			var rejected *frame
			for _, f := range s.frames()[before:] {
				if f.Error != nil && string(f.ID) == "null" {
					rejected = f
				}
			}
			require.NotNil(t, rejected, "no error reply with a null id")
			require.Equal(t, tc.wantCode, rejected.Error.Code)
		})
	}
}

// TestLifecycle_CaseInsensitiveHeaders checks SPEC §1: header names are
// case-insensitive.
func TestLifecycle_CaseInsensitiveHeaders(t *testing.T) {
	s := start(t)
	body := `{"jsonrpc":"2.0","id":"ci","method":"tools/list"}`
	s.writeRaw([]byte(fmt.Sprintf("content-LENGTH:%d\r\ncontent-type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", len(body), body)))
	f := s.wait(t, json.RawMessage(`"ci"`))
	require.Nil(t, f.Error)
}

// TestLifecycle_OversizedFrameSkippedWithoutAllocation checks SPEC §1: a frame
// over MAX_FRAME_BYTES is answered and skipped.
func TestLifecycle_OversizedFrameSkippedWithoutAllocation(t *testing.T) {
	s := start(t)
	baseKB := vmHWMKB(t, s.pid())
	const size = 64*1024*1024 + 1
	s.writeRaw([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", size)))
	chunk := make([]byte, 1<<20)
	for sent := 0; sent < size; sent += len(chunk) {
		if size-sent < len(chunk) {
			chunk = chunk[:size-sent]
		}
		s.writeRaw(chunk)
	}
	res := s.call(t, "tools/list", nil)
	require.NotNil(t, res)
	var rejected *frame
	for _, f := range s.frames() {
		if f.Error != nil && f.Error.Code == -32600 && strings.Contains(f.Error.Message, "67108864") {
			rejected = f
		}
	}
	require.NotNil(t, rejected, "oversized frame not answered with -32600 naming the limit")
	require.Equal(t, "null", string(rejected.ID))
	// The server did not buffer the frame: its peak resident set grew by far
	// less than the frame.
	grewKB := vmHWMKB(t, s.pid()) - baseKB
	require.Less(t, grewKB, int64(bodyAllocatedKB), "peak RSS grew %d kB: the oversized body was allocated", grewKB)
}

// bodyAllocatedKB is the growth of a server's peak RSS over its own baseline
// that says an oversized frame's body was allocated: half the 64 MiB frame
// limit. Measured from the server's baseline because the server under test
// is this (race-built) test binary, whose start-up size is not the product's.
const bodyAllocatedKB = 32 * 1024

// TestLifecycle_IDsEchoedExactly checks SPEC §1: ids are echoed exactly as
// sent.
func TestLifecycle_IDsEchoedExactly(t *testing.T) {
	s := start(t)
	for _, id := range []string{`0`, `-1`, `"abc"`, `""`, `18446744073709551616`, `9007199254740993`, `1.5`, `"a\"b"`} {
		t.Run(id, func(t *testing.T) {
			before := len(s.frames())
			s.sendWithID(t, json.RawMessage(id), "tools/list", nil)
			f := s.wait(t, json.RawMessage(id))
			require.Nil(t, f.Error)
			require.Equal(t, id, string(f.ID))
			// The raw frame carries the id text unchanged, not a re-encoding.
			var raw *frame
			for _, g := range s.frames()[before:] {
				if g == f {
					raw = g
				}
			}
			require.NotNil(t, raw)
			require.Contains(t, string(raw.Raw), `"id":`+id)
		})
	}
}

// TestLifecycle_InvalidIDTypeRejected checks SPEC §1: an id that is neither
// string nor number is -32600.
func TestLifecycle_InvalidIDTypeRejected(t *testing.T) {
	s := start(t)
	before := len(s.frames())
	s.writeRaw(rawFrame(`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`))
	s.call(t, "tools/list", nil)
	var found bool
	for _, f := range s.frames()[before:] {
		if f.Error != nil && f.Error.Code == -32600 && string(f.ID) == "null" {
			found = true
		}
	}
	require.True(t, found)
}

// TestLifecycle_ExitStatus checks SPEC §1: exit status 0 after shutdown, else
// 1.
func TestLifecycle_ExitStatus(t *testing.T) {
	t.Run("exit after shutdown is 0", func(t *testing.T) {
		s := start(t)
		s.call(t, "shutdown", nil)
		s.notify(t, "exit", nil)
		require.Equal(t, 0, s.waitExit(t))
	})
	t.Run("exit without shutdown is 1", func(t *testing.T) {
		s := start(t)
		s.notify(t, "exit", nil)
		require.Equal(t, 1, s.waitExit(t))
	})
	t.Run("EOF is shutdown plus exit", func(t *testing.T) {
		s := start(t)
		s.stdin.Close()
		require.Equal(t, 0, s.waitExit(t))
	})
	t.Run("requests after shutdown are refused", func(t *testing.T) {
		s := start(t)
		s.call(t, "shutdown", nil)
		e := s.callErr(t, "tools/list", nil)
		require.EqualValues(t, -32600, e.Code)
	})
}

// TestLifecycle_ToolsList checks SPEC §1: tools/list lists the tools with their
// limits.
func TestLifecycle_ToolsList(t *testing.T) {
	s := start(t)
	tools := decode[[]struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}](t, s.call(t, "tools/list", nil))
	var init struct {
		Capabilities struct {
			Tools struct {
				Methods []string `json:"methods"`
			} `json:"tools"`
		} `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(s.InitResult, &init))
	names := []string{}
	for _, tool := range tools {
		names = append(names, tool.Name)
		require.NotEmpty(t, tool.Description, tool.Name)
		var schema map[string]any
		require.NoError(t, json.Unmarshal(tool.InputSchema, &schema), tool.Name)
		require.Equal(t, "object", schema["type"], tool.Name)
		// Every listed tool answers (never -32601).
		_, e := s.request(t, tool.Name, map[string]any{})
		if e != nil {
			require.NotEqualValues(t, -32601, e.Code, tool.Name)
		}
	}
	require.Equal(t, init.Capabilities.Tools.Methods, names)
}
