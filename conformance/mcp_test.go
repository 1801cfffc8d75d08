package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// mcpTools are the MCP tool names and the LSP methods they serve.
var mcpTools = map[string]string{
	"read": "tools/read", "grep": "tools/grep", "glob": "tools/glob",
	"bash": "tools/bash", "edit": "tools/edit", "write": "tools/write",
	"process_start": "tools/process/start", "process_read": "tools/process/read",
	"process_write": "tools/process/write", "process_signal": "tools/process/signal",
	"process_list": "tools/process/list",
}

// mcpAnnotations are the MCP annotations each tool must carry (SPEC §12):
// read, grep, glob and the process reads only read; bash and the process
// tools that start or feed a command reach outside the roots.
var mcpAnnotations = map[string]struct{ readOnly, destructive, idempotent, openWorld bool }{
	"read": {readOnly: true, idempotent: true}, "grep": {readOnly: true, idempotent: true},
	"glob": {readOnly: true, idempotent: true}, "bash": {destructive: true, openWorld: true},
	"edit": {destructive: true}, "write": {destructive: true, idempotent: true},
	"process_start": {destructive: true, openWorld: true}, "process_read": {readOnly: true},
	"process_write": {destructive: true, openWorld: true}, "process_signal": {destructive: true},
	"process_list": {readOnly: true},
}

// inMCPWords is what LSP text says in MCP's words (SPEC §12): tools by their
// MCP names, progress as notifications/progress.
func inMCPWords(s string) string {
	s = strings.ReplaceAll(s, "$/progress chunks (token: workDoneToken, else the request id)",
		"notifications/progress messages (when the call carries a progressToken)")
	s = lspProcessName.ReplaceAllString(s, "process_$1")
	return lspToolName.ReplaceAllString(s, "$1")
}

var lspToolName = regexp.MustCompile(`\btools/(read|grep|glob|bash|edit|write)\b`)

var lspProcessName = regexp.MustCompile(`\btools/process/(start|read|write|signal|list)\b`)

// TestMCP_ListMatchesLSPMode checks SPEC §12: MCP tools/list matches LSP mode.
func TestMCP_ListMatchesLSPMode(t *testing.T) {
	lsp := start(t)
	m := mcpStart(t, mcpOptions{})
	lspTools := decode[[]struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}](t, lsp.call(t, "tools/list", nil))
	require.Len(t, m.tools, len(mcpTools))
	require.Len(t, lspTools, len(mcpTools))
	for _, lt := range lspTools {
		name := toolNameMCP(lt.Name)
		require.Equal(t, lt.Name, mcpTools[name], "%s serves %s", name, lt.Name)
		tool := m.tools[name]
		require.NotNil(t, tool, "MCP lists %s", name)
		require.Equal(t, inMCPWords(lt.Description), tool.Description, "%s: the same generated description, in MCP's words", name)
		in, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		require.JSONEq(t, string(lt.InputSchema), string(in), "%s: the same input schema", name)
		require.NotNil(t, tool.OutputSchema)
		a := tool.Annotations
		require.NotNil(t, a)
		require.NotNil(t, a.DestructiveHint)
		require.NotNil(t, a.OpenWorldHint)
		want := mcpAnnotations[name]
		require.Equal(t, want.readOnly, a.ReadOnlyHint, name)
		require.Equal(t, want.destructive, *a.DestructiveHint, name)
		require.Equal(t, want.openWorld, *a.OpenWorldHint, "%s: only bash and the commands it starts reach outside the roots", name)
		require.Equal(t, want.idempotent, a.IdempotentHint, name)
	}
}

// stripVolatile removes what differs between two runs of the same call:
// durations, chunk counts (coalescing is timed) and spill file names (time
// and session dependent).
var spillName = regexp.MustCompile(`/[^"\s]*/tool-output/bash-(stdout|stderr)-\d+-\d+\.log`)

func stripVolatile(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v))
	for _, obj := range []any{v, v["data"]} {
		if o, ok := obj.(map[string]any); ok {
			delete(o, "durationMs")
			for _, info := range []string{"stdoutInfo", "stderrInfo"} {
				if i, ok := o[info].(map[string]any); ok {
					delete(i, "chunks")
				}
			}
		}
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return spillName.ReplaceAllString(string(b), "/SPILL/$1")
}

// sameAsLSP makes one call in both modes on the same root and requires
// structuredContent to equal the LSP-mode result (or error object).
func sameAsLSP(t *testing.T, lsp *server, m *mcpServer, tool string, args map[string]any) (*mcp.CallToolResult, json.RawMessage) {
	t.Helper()
	res, sc := m.callTool(t, tool, args, nil)
	want, e := lsp.request(t, mcpTools[tool], args)
	if e != nil {
		require.True(t, res.IsError, "LSP mode failed with %v; MCP gave %s", e, text(res))
		e.Message = inMCPWords(e.Message)
		b, err := json.Marshal(e)
		require.NoError(t, err)
		want = b
	} else {
		require.False(t, res.IsError, "MCP failed with %s", text(res))
	}
	require.JSONEq(t, stripVolatile(t, want), stripVolatile(t, sc))
	return res, sc
}

// both starts an LSP-mode and an MCP-mode server on the same root.
func both(t *testing.T) (*server, *mcpServer) {
	lsp := start(t)
	return lsp, mcpStart(t, mcpOptions{roots: []string{lsp.Root}})
}

// TestMCP_EveryTool checks SPEC §12: every MCP tool's result and text.
func TestMCP_EveryTool(t *testing.T) {
	lsp, m := both(t)
	grepWrite(t, lsp.Root, [][2]string{{"a.txt", "one\ntwo token\nthree\n"}, {"sub/b.go", "package b // token\n"}})

	res, _ := sameAsLSP(t, lsp, m, "read", map[string]any{"path": "a.txt", "limit": 2})
	r := decode[readReply](t, json.RawMessage(mustJSON(t, res.StructuredContent)))
	require.Equal(t, r.Content+r.Notice, text(res), "read's text is the numbered content, then the notice")
	require.Equal(t, "[a.txt#"+r.Tag+"]\n1:one\n2:two token\n", r.Content)

	res, _ = sameAsLSP(t, lsp, m, "grep", map[string]any{"pattern": "token", "outputMode": "content", "context": 1, "path": "a.txt"})
	require.Equal(t, "a.txt-1-one\na.txt:2:two token\na.txt-3-three\n", text(res))
	res, _ = sameAsLSP(t, lsp, m, "grep", map[string]any{"pattern": "token", "outputMode": "count", "glob": "*.go"})
	require.Equal(t, "sub/b.go:1\n", text(res))
	res, _ = sameAsLSP(t, lsp, m, "glob", map[string]any{"pattern": "**/*.go"})
	require.Equal(t, "sub/b.go\n", text(res))

	res, _ = sameAsLSP(t, lsp, m, "bash", map[string]any{"command": "echo out; echo err >&2; exit 3"})
	require.Equal(t, "out\n[stderr]\nerr\n[exit code 3]", text(res))

	// edit and write change files: each mode gets its own file.
	for _, mode := range []string{"lsp", "mcp"} {
		require.NoError(t, os.WriteFile(filepath.Join(lsp.Root, mode+".txt"), []byte("x\ny\n"), 0o644))
	}
	tag := decode[readReply](t, lsp.call(t, "tools/read", map[string]any{"path": "lsp.txt"})).Tag
	want := lsp.call(t, "tools/edit", map[string]any{"path": "lsp.txt", "tag": tag, "ops": []any{map[string]any{"op": "replace", "start": 2, "lines": []string{"Y"}}}})
	_, rsc := m.ok(t, "read", map[string]any{"path": "mcp.txt"})
	tag = decode[readReply](t, rsc).Tag
	res, sc := m.ok(t, "edit", map[string]any{"path": "mcp.txt", "tag": tag, "ops": []any{map[string]any{"op": "replace", "start": 2, "lines": []string{"Y"}}}})
	require.JSONEq(t, strings.ReplaceAll(string(want), "lsp.txt", "mcp.txt"), string(sc))
	require.Equal(t, "[mcp.txt#"+decode[readReply](t, sc).Tag+"]\n1:x\n2:Y\n", text(res))

	want = lsp.call(t, "tools/write", map[string]any{"path": "new-lsp.txt", "content": "hello\n"})
	res, sc = m.ok(t, "write", map[string]any{"path": "new-mcp.txt", "content": "hello\n"})
	require.JSONEq(t, strings.ReplaceAll(string(want), "new-lsp.txt", "new-mcp.txt"), string(sc))
	require.Regexp(t, `^Created new-mcp\.txt: 1 line, 6 bytes, tag [0-9a-f]{4}\.$`, text(res))
	got, err := os.ReadFile(filepath.Join(lsp.Root, "new-mcp.txt"))
	require.NoError(t, err)
	require.Equal(t, "hello\n", string(got))
}

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestMCP_ErrorShapes checks SPEC §10, §12: tool failures are isError results
// naming the data.code.
func TestMCP_ErrorShapes(t *testing.T) {
	lsp, m := both(t)
	require.NoError(t, os.WriteFile(filepath.Join(lsp.Root, "blob.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(lsp.Root, "dir"), 0o755))
	tests := []struct {
		tool string
		args map[string]any
		kind string
		code int64
	}{
		{"read", map[string]any{"path": "missing.txt"}, "NOT_FOUND", -32001},
		{"read", map[string]any{"path": "dir"}, "IS_DIRECTORY", -32001},
		{"read", map[string]any{"path": "blob.png"}, "TOOL_BINARY_CONTENT", -32001},
		{"read", map[string]any{"path": "/etc/passwd"}, "PERMISSION_DENIED", -32001},
		{"read", map[string]any{"path": "a", "bogus": 1}, "INVALID_ARGUMENT", -32602},
		{"read", map[string]any{}, "INVALID_ARGUMENT", -32602},
		{"grep", map[string]any{"pattern": "("}, "INVALID_ARGUMENT", -32602},
		{"bash", map[string]any{"command": "true", "timeout": 0}, "INVALID_ARGUMENT", -32602},
		{"edit", map[string]any{"path": "dir/x", "tag": "0000", "ops": []any{map[string]any{"op": "delete", "start": 1}}}, "NOT_FOUND", -32001},
		{"write", map[string]any{"path": "/etc/toolrpc-nope", "content": "x"}, "PERMISSION_DENIED", -32001},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.kind, func(t *testing.T) {
			res, e := m.toolErr(t, tc.tool, tc.args)
			require.Equal(t, tc.kind, e.Kind)
			require.Equal(t, tc.code, e.Code)
			require.Equal(t, tc.kind+": "+e.Message, text(res))
			sameAsLSP(t, lsp, m, tc.tool, tc.args)
		})
	}
	t.Run("unknown tool is a protocol error", func(t *testing.T) {
		_, err := m.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tools/read", Arguments: map[string]any{"path": "x"}})
		require.Error(t, err)
		require.Contains(t, err.Error(), "unknown tool")
	})
	t.Run("timeout carries the partial output", func(t *testing.T) {
		mark := newMark(t)
		res, e := m.toolErr(t, "bash", map[string]any{"command": "echo partial; setsid sleep 1000 & sleep 1000", "timeout": 1,
			"env": map[string]string{"TESTMARK": mark}})
		require.Equal(t, "TIMEOUT", e.Kind)
		require.Equal(t, "SIGKILL", decode[bashRes](t, e.Data).Signal)
		require.Len(t, res.Content, 2)
		require.Equal(t, "partial\n[killed by SIGKILL]", res.Content[1].(*mcp.TextContent).Text)
		require.Empty(t, markHolders(mark))
	})
}

// requireProgressOrder checks a call's notifications: progress strictly
// increasing, per-stream seq contiguous from 0, and returns each stream's
// data and the number of heartbeats.
func requireProgressOrder(t *testing.T, ps []mcpProgress) (map[string]string, int) {
	t.Helper()
	data := map[string]string{}
	seqs := map[string]int{}
	beats := 0
	last := 0.0
	for _, p := range ps {
		require.Greater(t, p.Progress, last, "progress rises strictly")
		last = p.Progress
		if p.Meta["toolrpc/heartbeat"] == true {
			beats++
			continue
		}
		stream, _ := p.Meta["toolrpc/stream"].(string)
		require.Contains(t, []string{"stdout", "stderr"}, stream)
		require.Equal(t, float64(seqs[stream]), p.Meta["toolrpc/seq"], "seq runs from 0 per stream")
		seqs[stream]++
		require.True(t, utf8.ValidString(p.Message))
		data[stream] += p.Message
	}
	return data, beats
}

// TestMCP_ProgressOrder checks SPEC §6.4, §12: progress notifications keep
// per-stream seq and one rising counter, all before the result.
func TestMCP_ProgressOrder(t *testing.T) {
	m := mcpStart(t, mcpOptions{})
	res, sc := m.callTool(t, "bash", map[string]any{"command": "for i in $(seq 200); do echo out $i; echo err $i >&2; done"}, "p1")
	require.False(t, res.IsError)
	m.ping(t)
	tr := m.trace(t, "p1")
	require.True(t, tr.replied)
	require.Zero(t, tr.afterBye, "no progress after the result")
	data, _ := requireProgressOrder(t, tr.progress)
	r := decode[bashRes](t, sc)
	require.Equal(t, r.Stdout, data["stdout"], "every chunk precedes the result")
	require.Equal(t, r.Stderr, data["stderr"])
	require.Equal(t, r.StdoutInfo.Chunks+r.StderrInfo.Chunks, len(tr.progress))

	// Without a progressToken nothing is streamed.
	before := len(m.rec.messages())
	m.ok(t, "bash", map[string]any{"command": "echo quiet"})
	for _, rc := range m.rec.messages()[before:] {
		require.NotContains(t, string(mustJSON(t, rc.msg)), "notifications/progress")
	}
}

// TestMCP_HeartbeatWhileSilent checks SPEC §12: a silent call gets heartbeats.
func TestMCP_HeartbeatWhileSilent(t *testing.T) {
	m := mcpStart(t, mcpOptions{})
	// limits.MCPHeartbeatInterval is 5 s: a 6 s silent command gets one.
	res, _ := m.callTool(t, "bash", map[string]any{"command": "sleep 6; echo done"}, "hb")
	require.False(t, res.IsError)
	m.ping(t)
	tr := m.trace(t, "hb")
	data, beats := requireProgressOrder(t, tr.progress)
	require.GreaterOrEqual(t, beats, 1, "a silent call gets a heartbeat")
	require.Equal(t, "done\n", data["stdout"])
	require.Equal(t, "", tr.progress[0].Message, "the heartbeat carries no output")
	require.Zero(t, tr.afterBye)
}

// pgrp is the process group of pid, from /proc.
func pgrp(t testing.TB, pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	g, err := strconv.Atoi(f[2])
	require.NoError(t, err)
	return g
}

// groupsOf counts the distinct process groups of pids.
func groupsOf(t testing.TB, pids []int) int {
	seen := map[int]bool{}
	for _, p := range pids {
		if g := pgrp(t, p); g > 0 {
			seen[g] = true
		}
	}
	return len(seen)
}

// TestMCP_CancelKillsWholeTree checks SPEC §12, §6.6: notifications/cancelled
// kills the whole tree and nothing follows.
func TestMCP_CancelKillsWholeTree(t *testing.T) {
	for _, mode := range []string{"default", "sweep"} {
		t.Run(mode, func(t *testing.T) {
			m := mcpStart(t, mcpOptions{env: []string{"TOOLRPC_KILL_MODE=" + mode}})
			mark := newMark(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				p := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{
					"command": "setsid sleep 1000 & echo started; while :; do echo tick; sleep 0.01; done",
					"env":     map[string]string{"TESTMARK": mark},
				}}
				p.SetProgressToken("cancel-me")
				_, err := m.cs.CallTool(ctx, p)
				done <- err
			}()
			require.Eventually(t, func() bool {
				return groupsOf(t, markHolders(mark)) >= 2 && len(m.trace(t, "cancel-me").progress) > 0
			}, replyWait, 5*time.Millisecond, "the tree spans two process groups (a setsid'd child) and streams")
			cancel()
			require.ErrorIs(t, <-done, context.Canceled)
			require.Eventually(t, func() bool { return len(markHolders(mark)) == 0 }, replyWait, 5*time.Millisecond,
				"the setsid'd child dies with the call's own group")
			m.ping(t)
			require.Never(t, func() bool { return m.trace(t, "cancel-me").replied }, time.Second, 50*time.Millisecond,
				"no result is sent for a cancelled request")
			tr := m.trace(t, "cancel-me")
			require.True(t, tr.cancelled)
			require.Zero(t, tr.afterBye, "no progress after notifications/cancelled")
			requireProgressOrder(t, tr.progress)
			res, _ := m.ok(t, "bash", map[string]any{"command": "echo still serving"})
			require.Equal(t, "still serving\n[exit code 0]", text(res))
		})
	}
}

// TestMCP_StdinEOFKillsTreesAndExits checks SPEC §12, §6.6: end of input kills
// every tree and the server exits.
func TestMCP_StdinEOFKillsTreesAndExits(t *testing.T) {
	m := mcpStart(t, mcpOptions{})
	mark := newMark(t)
	go func() {
		_, _ = m.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{
			"command": "setsid sleep 1000 & (sleep 1000 &); sleep 1000", "env": map[string]string{"TESTMARK": mark}}})
	}()
	require.Eventually(t, func() bool { return len(markHolders(mark)) >= 3 }, replyWait, 5*time.Millisecond)
	require.Equal(t, 0, m.closeAndWait(t), "the server exits by itself, status 0")
	require.Empty(t, markHolders(mark), "no process of a call survives the server")
	entries, err := os.ReadDir(filepath.Join(m.DataDir, "scratch"))
	if err == nil {
		require.Empty(t, entries, "the session's scratch dir is removed")
	}
}

// TestMCP_Roots checks SPEC §3, §12: --root over the client's roots over the
// working directory.
func TestMCP_Roots(t *testing.T) {
	dirs := map[string]string{}
	for _, who := range []string{"flag", "flag2", "client", "cwd"} {
		dirs[who] = t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dirs[who], "who.txt"), []byte(who+"\n"), 0o644))
	}
	tests := []struct {
		name string
		o    mcpOptions
		want string
	}{
		{"--root wins over the client's roots", mcpOptions{roots: []string{dirs["flag"], dirs["flag2"]}, clientRoots: []string{dirs["client"]}, dir: dirs["cwd"]}, "flag"},
		{"the client's roots", mcpOptions{clientRoots: []string{dirs["client"]}, dir: dirs["cwd"]}, "client"},
		{"a client offering an empty roots list", mcpOptions{dir: dirs["cwd"]}, "cwd"},
		{"a client without roots", mcpOptions{noRootsCap: true, dir: dirs["cwd"]}, "cwd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mcpStart(t, tc.o)
			_, sc := m.ok(t, "read", map[string]any{"path": "who.txt"})
			r := decode[readReply](t, sc)
			require.Equal(t, "who.txt", r.Path, "relative to the first root")
			require.Equal(t, "workspace", r.Root)
			require.Contains(t, r.Content, "1:"+tc.want+"\n")
			_, e := m.toolErr(t, "read", map[string]any{"path": filepath.Join(dirs["client"], "..", "elsewhere.txt")})
			require.Equal(t, "PERMISSION_DENIED", e.Kind, "§3: nothing outside the roots")
		})
	}
	t.Run("a second --root is reported absolute", func(t *testing.T) {
		m := mcpStart(t, tests[0].o)
		second, err := filepath.EvalSymlinks(filepath.Join(dirs["flag2"], "who.txt"))
		require.NoError(t, err)
		_, sc := m.ok(t, "read", map[string]any{"path": second})
		require.Equal(t, second, decode[readReply](t, sc).Path)
	})
}

// TestMCP_Criteria runs the §11 criteria that hold in MCP mode (1–13; 14,
// checkpoints, has no MCP tool): each makes its calls in both modes on one
// root, requires structuredContent to equal the LSP-mode result, and checks
// the criterion on the MCP result and its text.
func TestMCP_Criteria(t *testing.T) {
	lsp, m := both(t)
	root := lsp.Root
	t.Run("01 bash oversize spilled", func(t *testing.T) {
		skipOnWine(t, whyBash)
		res, sc := sameAsLSP(t, lsp, m, "bash", map[string]any{"command": "seq 100000"})
		r := decode[bashRes](t, sc)
		require.NotNil(t, r.StdoutInfo.Spill)
		require.Contains(t, text(res), "[truncated: kept the first 4000 of 100000 lines; limit 4000 lines / 96KB. Full output saved to "+*r.StdoutInfo.Spill)
		spilled, err := os.ReadFile(*r.StdoutInfo.Spill)
		require.NoError(t, err)
		require.Greater(t, len(spilled), len(r.Stdout))
	})
	t.Run("02 bash stderr keeps its tail", func(t *testing.T) {
		skipOnWine(t, whyBash)
		res, sc := sameAsLSP(t, lsp, m, "bash", map[string]any{"command": "seq 100000 >&2"})
		r := decode[bashRes](t, sc)
		require.True(t, strings.HasPrefix(r.Stderr, "[truncated: kept the last 4000 of 100000 lines"))
		require.True(t, strings.HasSuffix(r.Stderr, "\n100000\n"))
		require.Contains(t, text(res), "[stderr]\n"+r.Stderr)
	})
	t.Run("03 grep stops at headLimit", func(t *testing.T) {
		for i := 0; i < 10; i++ {
			grepWrite(t, root, [][2]string{{fmt.Sprintf("c03/f%d.txt", i), "hit\n"}})
		}
		res, sc := sameAsLSP(t, lsp, m, "grep", map[string]any{"pattern": "hit", "path": "c03", "headLimit": 3})
		r := decode[grepFilesReply](t, sc)
		require.Len(t, r.Files, 3)
		require.True(t, r.Truncated)
		require.Contains(t, text(res), r.Notice)
	})
	t.Run("04 lines clipped and not editable", func(t *testing.T) {
		grepWrite(t, root, [][2]string{{"c04.txt", "head\n" + strings.Repeat("z", 20000) + "\ntail\n"}})
		_, sc := sameAsLSP(t, lsp, m, "read", map[string]any{"path": "c04.txt"})
		r := decode[readReply](t, sc)
		require.Equal(t, []int{2}, r.ClippedLines)
		_, e := m.toolErr(t, "edit", map[string]any{"path": "c04.txt", "tag": r.Tag, "ops": []any{map[string]any{"op": "delete", "start": 2}}})
		require.Equal(t, "LINE_NOT_VISIBLE", e.Kind)
		_, sc = sameAsLSP(t, lsp, m, "grep", map[string]any{"pattern": "z", "path": "c04.txt", "outputMode": "content"})
		require.Len(t, []rune(decode[grepContentReply](t, sc).Matches[0].Text), 16384)
	})
	criteria05to08(t, lsp, m)
	criteria09to12(t, lsp, m)
	// 13 (timeout and abort kill the whole tree, no chunk after): TestMCP_CancelKillsWholeTree,
	// TestMCP_ErrorShapes/timeout_carries_the_partial_output, TestMCP_ProgressOrder.
}

func criteria05to08(t *testing.T, lsp *server, m *mcpServer) {
	root := lsp.Root
	t.Run("05 read pages a large file", func(t *testing.T) {
		var b strings.Builder
		for i := 1; i <= 150000; i++ {
			fmt.Fprintf(&b, "line %d of a multi-megabyte log\n", i)
		}
		grepWrite(t, root, [][2]string{{"c05.log", b.String()}})
		res, sc := sameAsLSP(t, lsp, m, "read", map[string]any{"path": "c05.log", "offset": 100000, "limit": 100})
		r := decode[readReply](t, sc)
		require.False(t, r.Truncated)
		require.Equal(t, 150000, r.TotalLines)
		require.Contains(t, text(res), "Next: offset=100100.")
	})
	t.Run("06 read rejects binary content", func(t *testing.T) {
		grepWrite(t, root, [][2]string{{"c06.dat", "ab\x00cd"}})
		res, _ := sameAsLSP(t, lsp, m, "read", map[string]any{"path": "c06.dat"})
		require.True(t, res.IsError)
		require.True(t, strings.HasPrefix(text(res), "TOOL_BINARY_CONTENT: "))
	})
	t.Run("07 explicit path reaches ignored trees", func(t *testing.T) {
		grepWrite(t, root, [][2]string{{"c07/.gitignore", "node_modules/\n"}, {"c07/node_modules/x/i.js", "token\n"}, {"c07/app.js", "token\n"}})
		_, sc := sameAsLSP(t, lsp, m, "grep", map[string]any{"pattern": "token", "path": "c07"})
		require.Equal(t, []string{"c07/app.js"}, decode[grepFilesReply](t, sc).Files)
		res, sc := sameAsLSP(t, lsp, m, "grep", map[string]any{"pattern": "token", "path": "c07/node_modules/x"})
		require.Equal(t, []string{"c07/node_modules/x/i.js"}, decode[grepFilesReply](t, sc).Files)
		require.Equal(t, "c07/node_modules/x/i.js\n", text(res))
	})
	t.Run("08 newest first", func(t *testing.T) {
		names := []string{"c08/old.txt", "c08/mid.txt", "c08/new.txt"}
		for i, n := range names {
			grepWrite(t, root, [][2]string{{n, "hit\n"}})
			when := time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC)
			require.NoError(t, os.Chtimes(filepath.Join(root, n), when, when))
		}
		want := append([]string(nil), names...)
		sort.Sort(sort.Reverse(sort.StringSlice(want[:0:0])))
		want = []string{names[2], names[1], names[0]}
		res, sc := sameAsLSP(t, lsp, m, "glob", map[string]any{"pattern": "c08/*.txt"})
		require.Equal(t, want, decode[globReply](t, sc).Matches)
		require.Equal(t, strings.Join(want, "\n")+"\n", text(res))
		_, sc = sameAsLSP(t, lsp, m, "grep", map[string]any{"pattern": "hit", "path": "c08"})
		require.Equal(t, want, decode[grepFilesReply](t, sc).Files)
	})
}

func criteria09to12(t *testing.T, lsp *server, m *mcpServer) {
	t.Run("09 truncated results are valid UTF-8", func(t *testing.T) {
		skipOnWine(t, whyBash)
		res, sc := sameAsLSP(t, lsp, m, "bash", map[string]any{"command": `printf 'a\377b\n'; printf a; yes é | head -n 60000 | tr -d '\n'`})
		r := decode[bashRes](t, sc)
		require.True(t, r.Truncated)
		require.True(t, utf8.ValidString(r.Stdout))
		require.True(t, utf8.ValidString(text(res)))
	})
	t.Run("10 capture cap above the budget", func(t *testing.T) {
		skipOnWine(t, whyBash)
		_, sc := sameAsLSP(t, lsp, m, "bash", map[string]any{"command": "seq 300000"})
		r := decode[bashRes](t, sc)
		require.Greater(t, r.StdoutInfo.OmittedBytes, 0)
		require.Greater(t, r.StdoutInfo.OmittedLines, 0)
		spilled, err := os.ReadFile(*r.StdoutInfo.Spill)
		require.NoError(t, err)
		require.Greater(t, len(spilled), len(r.Stdout))
	})
	t.Run("11 each stream streamed with its own seq", func(t *testing.T) {
		skipOnWine(t, whyBash)
		res, sc := m.callTool(t, "bash", map[string]any{"command": "seq 3; seq 4 6 >&2"}, "c11")
		require.False(t, res.IsError)
		m.ping(t)
		data, _ := requireProgressOrder(t, m.trace(t, "c11").progress)
		r := decode[bashRes](t, sc)
		require.Equal(t, map[string]string{"stdout": r.Stdout, "stderr": r.Stderr}, data)
	})
	t.Run("12 bash timeout default and range", func(t *testing.T) {
		require.Contains(t, m.tools["bash"].Description, "default 60, allowed 1..21600")
		for _, bad := range []any{0, 0.5, 21601, "60"} {
			_, e := m.toolErr(t, "bash", map[string]any{"command": "true", "timeout": bad})
			require.Equal(t, "INVALID_ARGUMENT", e.Kind)
		}
		res, _ := sameAsLSP(t, lsp, m, "bash", map[string]any{"command": "echo ok", "timeout": 21600})
		require.Equal(t, "ok\n[exit code 0]", text(res))
	})
}
