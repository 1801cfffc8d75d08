package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// The contract's checkpoint marker (SPEC §9), spelled out here rather than
// imported so the test checks the wire text, not the constant.
const checkpointMarker = "[checkpoint truncated: this message crossed the retained context budget]"

// shrunkRE splits a cut content into head and tail around the marker line.
var shrunkRE = regexp.MustCompile(`(?s)\A(.*)\n` + regexp.QuoteMeta(checkpointMarker) + `\n(.*)\z`)

type cpMessage struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"toolCallId"`
	ToolCalls  []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"toolCalls"`
}

type cpResult struct {
	CheckpointID string            `json:"checkpointId"`
	Messages     []json.RawMessage `json:"messages"`
	Stats        struct {
		InputTokens  int   `json:"inputTokens"`
		OutputTokens int   `json:"outputTokens"`
		Shrunk       []int `json:"shrunk"`
	} `json:"stats"`
}

func estimateTokens(s string) int { return (len(s) + 3) / 4 }

// numberedLines returns about n bytes of lines "<tag> line K\n", so every head
// and tail is recognisable.
func numberedLines(tag string, n int) string {
	var sb strings.Builder
	for k := 0; sb.Len() < n; k++ {
		fmt.Fprintf(&sb, "%s line %d — ok\n", tag, k)
	}
	return sb.String()
}

// batchTranscript is a turn with a small batch of 2 results, then a batch of 8
// oversized parallel results (12k to 19k tokens each, 124k in total against
// the 32k budget), then the assistant's answer.
func batchTranscript() []map[string]any {
	msgs := []map[string]any{
		{"role": "user", "content": "find the flaky test"},
		{"role": "assistant", "content": "", "toolCalls": []map[string]any{
			{"id": "small_0", "name": "tools/glob", "arguments": `{"pattern":"**/*_test.go"}`},
			{"id": "small_1", "name": "tools/read", "arguments": `{"path":"go.mod"}`},
		}, "providerMeta": map[string]any{"model": "m", "n": 1}},
		{"role": "tool", "toolCallId": "small_1", "content": "module x\n"},
		{"role": "tool", "toolCallId": "small_0", "content": "a_test.go\nb_test.go\n"},
	}
	var calls []map[string]any
	for k := range 8 {
		calls = append(calls, map[string]any{"id": fmt.Sprint("grep_", k), "name": "tools/grep", "arguments": fmt.Sprintf(`{"pattern":"p%d"}`, k)})
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "searching in parallel", "toolCalls": calls})
	for _, k := range []int{3, 0, 7, 1, 6, 2, 5, 4} { // results arrive out of call order
		msgs = append(msgs, map[string]any{"role": "tool", "toolCallId": fmt.Sprint("grep_", k),
			"content": numberedLines(fmt.Sprint("grep_", k), (12000+1000*k)*4)})
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "TestFoo is flaky"})
	return msgs
}

// TestCriterion14_BatchCompactsAndSurvivesRestart checks SPEC §9 (§11 criterion
// 14): an oversized batch compacts to a bounded marked tail, survives a
// restart, and the input is unchanged.
func TestCriterion14_BatchCompactsAndSurvivesRestart(t *testing.T) {
	dataDir := t.TempDir()
	const sessionID = "crit14-session"
	s := start(t, withDataDir(dataDir), withSessionID(sessionID))
	in := batchTranscript()
	inJSON, err := json.Marshal(in)
	require.NoError(t, err)

	raw := s.call(t, "context/compact", map[string]any{"checkpointId": "turn-7.a", "messages": in})
	got := decode[cpResult](t, raw)

	require.Equal(t, "turn-7.a", got.CheckpointID)
	require.Len(t, got.Messages, len(in))
	wantShrunk := []int{5, 6, 7, 8, 9, 10, 11, 12}
	require.Equal(t, wantShrunk, got.Stats.Shrunk, "all 8 oversized results are cut, nothing else")

	batchTokens := 0
	for i, m := range got.Messages {
		orig, err := json.Marshal(in[i])
		require.NoError(t, err)
		var o, g cpMessage
		require.NoError(t, json.Unmarshal(orig, &o))
		require.NoError(t, json.Unmarshal(m, &g))
		require.Equal(t, o.Role, g.Role, "messages[%d] role", i)
		require.Equal(t, o.ToolCallID, g.ToolCallID, "messages[%d] pairing", i)
		require.Equal(t, o.ToolCalls, g.ToolCalls, "messages[%d] calls", i)
		if i < 5 || i > 12 {
			require.JSONEq(t, string(orig), string(m), "messages[%d] echoed unchanged", i)
			continue
		}
		batchTokens += estimateTokens(g.Content)
		parts := shrunkRE.FindStringSubmatch(g.Content)
		require.NotNil(t, parts, "messages[%d] carries the checkpoint marker on its own line", i)
		require.Equal(t, 1, strings.Count(g.Content, checkpointMarker))
		head, tail := parts[1], parts[2]
		require.True(t, strings.HasPrefix(o.Content, head), "messages[%d] head is the original's start", i)
		require.True(t, strings.HasSuffix(o.Content, tail), "messages[%d] tail is the original's end", i)
		require.True(t, strings.HasPrefix(head, g.ToolCallID+" line 0 — ok\n"))
		require.NotEmpty(t, tail)
		require.Less(t, len(g.Content), len(o.Content))
		require.LessOrEqual(t, len(g.Content), 4000*4, "water level: 32000 tokens over 8 equal shares")
		payload := 4000*4 - len("\n"+checkpointMarker+"\n")
		require.InDelta(t, payload*75/100, len(head), 3, "head keeps 75% of the payload, less a split character")
		require.InDelta(t, payload-payload*75/100, len(tail), 3, "tail keeps the other 25%")
	}
	require.LessOrEqual(t, batchTokens, 32000, "the batch fits CHECKPOINT_BATCH_TOKENS")

	// Every call keeps exactly one result, in the original order.
	var order []string
	for _, m := range got.Messages[5:13] {
		order = append(order, decode[cpMessage](t, m).ToolCallID)
	}
	require.Equal(t, []string{"grep_3", "grep_0", "grep_7", "grep_1", "grep_6", "grep_2", "grep_5", "grep_4"}, order)

	again, err := json.Marshal(in)
	require.NoError(t, err)
	require.Equal(t, string(inJSON), string(again), "the transcript the host sent is unchanged")

	file := filepath.Join(dataDir, "checkpoints", sessionID, "turn-7.a.json")
	onDisk, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, string(raw), string(onDisk), "the reply is the persisted checkpoint")

	require.NoError(t, signalPid(s.pid(), syscall.SIGKILL))
	require.Equal(t, killedStatus(syscall.SIGKILL), s.waitExit(t))

	s2 := start(t, withDataDir(dataDir), withSessionID(sessionID))
	loaded := s2.call(t, "context/load", map[string]any{"checkpointId": "turn-7.a"})
	require.Equal(t, string(raw), string(loaded), "context/load after kill -9 returns the checkpoint byte for byte")

	// Compacting the same transcript under the same id is an idempotent retry;
	// different content under it is refused, and the file is untouched.
	retry := s2.call(t, "context/compact", map[string]any{"checkpointId": "turn-7.a", "messages": in})
	require.Equal(t, string(raw), string(retry))
	e := s2.callErr(t, "context/compact", map[string]any{"checkpointId": "turn-7.a", "messages": in[:1]})
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	require.Contains(t, e.Message, "never rewritten")
	onDisk2, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, onDisk, onDisk2)

	other := start(t, withDataDir(dataDir), withSessionID("another-session"))
	e = other.callErr(t, "context/load", map[string]any{"checkpointId": "turn-7.a"})
	require.Equal(t, "NOT_FOUND", e.Kind, "checkpoints belong to their session")
}

// TestCheckpoint_UserSplitMeasured measures the 75/25 split of the latest user
// message to the byte: the 20000-token budget is 80000 bytes, of which the
// marker line takes len(marker)+2; the head keeps ⌊75%⌋ of the rest and the
// tail the remainder.
//
// Checks SPEC §9.
func TestCheckpoint_UserSplitMeasured(t *testing.T) {
	s := start(t)
	content := strings.Repeat("0123456789abcdef", 120000/16) // 120000 bytes, 30000 tokens
	earlier := strings.Repeat("e", 100000)
	raw := s.call(t, "context/compact", map[string]any{"checkpointId": "u1", "messages": []map[string]any{
		{"role": "user", "content": earlier},
		{"role": "assistant", "content": "ok"},
		{"role": "user", "content": content},
	}})
	got := decode[cpResult](t, raw)
	require.Equal(t, []int{2}, got.Stats.Shrunk, "only the latest user message is cut")
	require.JSONEq(t, `{"role":"user","content":"`+earlier+`"}`, string(got.Messages[0]))
	m := decode[cpMessage](t, got.Messages[2])

	payload := 20000*4 - len("\n"+checkpointMarker+"\n")
	wantHead := payload * 75 / 100
	wantTail := payload - wantHead
	parts := shrunkRE.FindStringSubmatch(m.Content)
	require.NotNil(t, parts)
	require.Equal(t, wantHead, len(parts[1]), "head bytes")
	require.Equal(t, wantTail, len(parts[2]), "tail bytes")
	require.Equal(t, content[:wantHead], parts[1])
	require.Equal(t, content[len(content)-wantTail:], parts[2])
	require.Equal(t, 20000*4, len(m.Content), "the cut message fills its budget exactly")
	require.Equal(t, estimateTokens(earlier)+1+estimateTokens(content), got.Stats.InputTokens)
	require.Equal(t, estimateTokens(earlier)+1+20000, got.Stats.OutputTokens)
}

// TestCheckpoint_BudgetsOverrideAndMultibyteCut checks SPEC §9: budgets
// override the defaults and cuts keep characters whole.
func TestCheckpoint_BudgetsOverrideAndMultibyteCut(t *testing.T) {
	s := start(t)
	content := strings.Repeat("€", 2000) // 6000 bytes, 1500 tokens
	raw := s.call(t, "context/compact", map[string]any{"checkpointId": "b1", "budgets": map[string]any{"userTokens": 300, "batchTokens": 256},
		"messages": []map[string]any{{"role": "user", "content": content}}})
	m := decode[cpMessage](t, decode[cpResult](t, raw).Messages[0])
	parts := shrunkRE.FindStringSubmatch(m.Content)
	require.NotNil(t, parts)
	payload := 300*4 - len("\n"+checkpointMarker+"\n")
	require.Equal(t, payload*75/100/3*3, len(parts[1]), "head rounds down to a whole character")
	require.Equal(t, (payload-payload*75/100)/3*3, len(parts[2]), "tail rounds down to a whole character")
	require.LessOrEqual(t, estimateTokens(m.Content), 300)
}

// TestCheckpoint_BadRequestsRejected checks SPEC §9, §10: bad context/compact
// and context/load requests are INVALID_ARGUMENT or NOT_FOUND.
func TestCheckpoint_BadRequestsRejected(t *testing.T) {
	s := start(t)
	call := func(id string) map[string]any {
		return map[string]any{"role": "assistant", "toolCalls": []map[string]any{{"id": id, "name": "tools/read"}}}
	}
	result := func(id string) map[string]any {
		return map[string]any{"role": "tool", "toolCallId": id, "content": "x"}
	}
	user := map[string]any{"role": "user", "content": "q"}
	for _, tc := range []struct {
		name      string
		params    map[string]any
		wantIndex int // -1: no index
		wantIn    string
	}{
		{"result without call", map[string]any{"checkpointId": "c", "messages": []any{user, result("a")}}, 1, "no assistant message made"},
		{"call without result", map[string]any{"checkpointId": "c", "messages": []any{user, call("a"), user}}, 1, "has no result"},
		{"duplicate call ids", map[string]any{"checkpointId": "c", "messages": []any{call("a"), result("a"), call("a"), result("a")}}, 2, "duplicate tool call id"},
		{"duplicate result", map[string]any{"checkpointId": "c", "messages": []any{call("a"), result("a"), result("a")}}, 2, "duplicate result"},
		{"unknown role", map[string]any{"checkpointId": "c", "messages": []any{user, map[string]any{"role": "system", "content": "x"}}}, 1, "unknown role"},
		{"content not a string", map[string]any{"checkpointId": "c", "messages": []any{map[string]any{"role": "user", "content": []int{1}}}}, 0, "content must be a string"},
		{"empty checkpointId", map[string]any{"checkpointId": "", "messages": []any{user}}, -1, "checkpointId"},
		{"bad checkpointId", map[string]any{"checkpointId": "../etc", "messages": []any{user}}, -1, "checkpointId"},
		{"long checkpointId", map[string]any{"checkpointId": strings.Repeat("a", 65), "messages": []any{user}}, -1, "checkpointId"},
		{"missing messages", map[string]any{"checkpointId": "c"}, -1, "messages"},
		{"budget too small", map[string]any{"checkpointId": "c", "messages": []any{user}, "budgets": map[string]any{"userTokens": 255}}, -1, "budgets.userTokens"},
		{"budget fractional", map[string]any{"checkpointId": "c", "messages": []any{user}, "budgets": map[string]any{"batchTokens": 1000.5}}, -1, "batchTokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := s.callErr(t, "context/compact", tc.params)
			require.EqualValues(t, -32602, e.Code)
			require.Equal(t, "INVALID_ARGUMENT", e.Kind)
			require.Contains(t, e.Message, tc.wantIn)
			if tc.wantIndex >= 0 {
				require.Contains(t, e.Message, fmt.Sprintf("messages[%d]", tc.wantIndex))
				require.Equal(t, tc.wantIndex, decode[struct {
					Index int `json:"index"`
				}](t, e.Data).Index)
			}
		})
	}
	_, err := os.Stat(filepath.Join(s.DataDir, "checkpoints"))
	require.ErrorIs(t, err, os.ErrNotExist, "a rejected request persists nothing")

	e := s.callErr(t, "context/load", map[string]any{"checkpointId": "never-saved"})
	require.Equal(t, "NOT_FOUND", e.Kind)
	e = s.callErr(t, "context/load", map[string]any{"checkpointId": "a/b"})
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
}

// TestCheckpoint_ShutdownKeepsCheckpoints checks SPEC §7, §9: shutdown removes
// the scratch dir but keeps checkpoints.
func TestCheckpoint_ShutdownKeepsCheckpoints(t *testing.T) {
	dataDir := t.TempDir()
	s := start(t, withDataDir(dataDir), withSessionID("keep"))
	raw := s.call(t, "context/compact", map[string]any{"checkpointId": "k", "messages": []any{map[string]any{"role": "user", "content": "hi"}}})
	s.stop(t)
	require.Equal(t, 0, s.waitExit(t))
	s2 := start(t, withDataDir(dataDir), withSessionID("keep"))
	require.Equal(t, string(raw), string(s2.call(t, "context/load", map[string]any{"checkpointId": "k"})))
}
