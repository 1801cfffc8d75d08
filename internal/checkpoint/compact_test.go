package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/wire"
)

func user(s string) Message      { return Message{Role: RoleUser, Content: s} }
func assistant(s string) Message { return Message{Role: RoleAssistant, Content: s} }
func calls(ids ...string) Message {
	m := Message{Role: RoleAssistant}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "tools/read"})
	}
	return m
}
func result(id, s string) Message { return Message{Role: RoleTool, ToolCallID: id, Content: s} }

// tokens returns a string of n estimated tokens (4n ASCII bytes).
func tokens(n int) string { return strings.Repeat("abcd", n) }

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name      string
		msgs      []Message
		wantIndex int // -1: valid
		wantIn    string
	}{
		{"empty", nil, -1, ""},
		{"plain turns", []Message{user("hi"), assistant("hello")}, -1, ""},
		{"batch in any order", []Message{user("q"), calls("a", "b"), result("b", "1"), result("a", "2"), assistant("done")}, -1, ""},
		{"two batches", []Message{calls("a"), result("a", ""), calls("b"), result("b", "")}, -1, ""},
		{"unknown role", []Message{user("q"), {Role: "system", Content: "x"}}, 1, "unknown role"},
		{"empty role", []Message{{Content: "x"}}, 0, "unknown role"},
		{"result without call", []Message{user("q"), result("a", "x")}, 1, "no assistant message made"},
		{"call without result", []Message{calls("a", "b"), result("a", "x")}, 0, `"b" has no result`},
		{"call without result before next turn", []Message{calls("a"), user("q")}, 0, `"a" has no result`},
		{"duplicate call id", []Message{calls("a"), result("a", ""), calls("a"), result("a", "")}, 2, "duplicate tool call id"},
		{"duplicate call id in one message", []Message{calls("a", "a")}, 0, "duplicate tool call id"},
		{"duplicate result", []Message{calls("a"), result("a", ""), result("a", "")}, 2, "duplicate result"},
		{"result after a later turn", []Message{calls("a"), result("a", ""), calls("b"), result("b", ""), user("x"), result("a", "")}, 5, "duplicate result"},
		{"result of an earlier batch", []Message{calls("a", "c"), result("a", ""), assistant("x"), result("c", "")}, 0, `"c" has no result`},
		{"tool message without id", []Message{calls("a"), {Role: RoleTool}}, 1, "no toolCallId"},
		{"user with toolCalls", []Message{{Role: RoleUser, ToolCalls: []ToolCall{{ID: "a", Name: "n"}}}}, 0, "only assistant"},
		{"assistant with toolCallId", []Message{{Role: RoleAssistant, ToolCallID: "a"}}, 0, "cannot carry toolCallId"},
		{"call without id", []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{Name: "n"}}}}, 0, "has no id"},
		{"call without name", []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "a"}}}}, 0, "has no name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.msgs)
			if tc.wantIndex < 0 {
				require.NoError(t, err)
				return
			}
			var te *TranscriptError
			require.ErrorAs(t, err, &te)
			require.Equal(t, tc.wantIndex, te.Index)
			require.Contains(t, te.Error(), tc.wantIn)
			require.Contains(t, te.Error(), fmt.Sprintf("messages[%d]", tc.wantIndex))
		})
	}
}

func TestParseTranscriptNamesIndex(t *testing.T) {
	for _, tc := range []struct {
		name      string
		raw       string
		wantIndex int
	}{
		{"content not a string", `[{"role":"user","content":"x"},{"role":"user","content":[1]}]`, 1},
		{"role not a string", `[{"role":1}]`, 0},
		{"toolCalls not an array", `[{"role":"user"},{"role":"user"},{"role":"assistant","toolCalls":{}}]`, 2},
		{"message not an object", `[{"role":"user"},"x"]`, 1},
		{"message null", `[null]`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTranscript(json.RawMessage(tc.raw))
			var te *TranscriptError
			require.ErrorAs(t, err, &te)
			require.Equal(t, tc.wantIndex, te.Index)
		})
	}
	_, err := ParseTranscript(json.RawMessage(`{}`))
	require.Error(t, err)
	_, err = ParseTranscript(json.RawMessage(`null`))
	require.Error(t, err)
}

func TestMessageJSONEchoesUnknownMembers(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"extras kept, keys sorted", `{"role":"user","content":"x","zeta":{"a":1},"alpha":[1]}`, `{"alpha":[1],"content":"x","role":"user","zeta":{"a":1}}`},
		{"null content stays null", `{"role":"assistant","content":null,"toolCalls":[{"id":"a","name":"n","arguments":"{\"p\":1}","type":"function"}]}`,
			`{"content":null,"role":"assistant","toolCalls":[{"arguments":"{\"p\":1}","id":"a","name":"n","type":"function"}]}`},
		{"absent content stays absent", `{"role":"assistant","toolCalls":[]}`, `{"role":"assistant","toolCalls":[]}`},
		{"empty content stays empty", `{"role":"tool","content":"","toolCallId":"a"}`, `{"content":"","role":"tool","toolCallId":"a"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m Message
			require.NoError(t, json.Unmarshal([]byte(tc.in), &m))
			got, err := json.Marshal(m)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
}

// TestCutSplitMeasured checks the 75/25 split to the byte: for a budget B the
// payload is B − len(marker line), the head gets ⌊payload·75/100⌋ bytes and the
// tail the rest.
func TestCutSplitMeasured(t *testing.T) {
	marker := limits.CheckpointMarkerLine
	for _, tc := range []struct {
		name             string
		s                string
		budget           int
		wantHead, wantTl int
	}{
		{"ascii 20000 tokens", strings.Repeat("x", 100000), 80000, (80000 - len(marker)) * 75 / 100, (80000 - len(marker)) - (80000-len(marker))*75/100},
		{"ascii odd budget", strings.Repeat("y", 5000), 1025, (1025 - len(marker)) * 3 / 4, (1025 - len(marker)) - (1025-len(marker))*3/4},
		{"budget is the marker", strings.Repeat("z", 500), len(marker), 0, 0},
		// "€" is 3 bytes: the head rounds down to a multiple of 3, the tail too.
		{"multibyte rounds down", strings.Repeat("€", 1000), 1024, (1024 - len(marker)) * 3 / 4 / 3 * 3, ((1024 - len(marker)) - (1024-len(marker))*3/4) / 3 * 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cut(tc.s, tc.budget)
			i := strings.Index(got, marker)
			require.GreaterOrEqual(t, i, 0, "marker line missing")
			head, tail := got[:i], got[i+len(marker):]
			require.Equal(t, tc.wantHead, len(head))
			require.Equal(t, tc.wantTl, len(tail))
			require.LessOrEqual(t, len(got), tc.budget)
			require.True(t, strings.HasPrefix(tc.s, head))
			require.True(t, strings.HasSuffix(tc.s, tail))
			require.True(t, utf8.ValidString(got))
		})
	}
	require.Equal(t, "short", cut("short", 100), "a fitting string is returned whole")
}

func TestCompactLatestUserMessage(t *testing.T) {
	b := DefaultBudgets()
	big := tokens(b.UserTokens + 1)
	for _, tc := range []struct {
		name       string
		msgs       []Message
		wantShrunk []int
	}{
		{"latest over budget is cut", []Message{user("q"), assistant("a"), user(big)}, []int{2}},
		{"exactly at budget is kept", []Message{user(tokens(b.UserTokens))}, []int{}},
		{"only the latest user message is cut", []Message{user(big), assistant("a"), user(big), assistant(big)}, []int{2}},
		{"earlier big user message is kept", []Message{user(big), assistant("a"), user("q")}, []int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, st, err := Compact(tc.msgs, b)
			require.NoError(t, err)
			require.Equal(t, tc.wantShrunk, st.Shrunk)
			checkCompaction(t, tc.msgs, b, out, st)
			for _, i := range tc.wantShrunk {
				require.Equal(t, b.UserTokens*limits.BytesPerToken, len(out[i].Content), "an ASCII message is cut to its budget exactly")
			}
		})
	}
}

func TestFillWaterLevel(t *testing.T) {
	for _, tc := range []struct {
		name        string
		tokens      []int
		budget      int
		wantTargets []int
	}{
		{"fits", []int{10, 20}, 30, []int{10, 20}},
		{"largest first", []int{2000, 1000, 100, 50}, 1000, []int{425, 425, 100, 50}},
		{"leftover goes to the first cut ones", []int{2000, 1000, 100, 50}, 1001, []int{426, 425, 100, 50}},
		{"only the largest is cut", []int{5000, 300, 200}, 1000, []int{500, 300, 200}},
		{"eight equal", []int{9000, 9000, 9000, 9000, 9000, 9000, 9000, 9000}, 32000, []int{4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000}},
		{"leftover reaches a result's own size", []int{301, 310, 100}, 701, []int{301, 300, 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := fill(tc.tokens, tc.budget)
			require.True(t, ok)
			require.Equal(t, tc.wantTargets, got)
		})
	}
	_, ok := fill(slices.Repeat([]int{1000}, 100), 1000)
	require.False(t, ok, "100 results cannot each keep a 19-token marker in 1000 tokens")
}

func TestCompactBatch(t *testing.T) {
	b := Budgets{UserTokens: limits.CheckpointUserTokens, BatchTokens: 1000}
	msgs := []Message{
		user("run"),
		calls("a", "b", "c", "d"),
		result("a", tokens(2000)),
		result("b", tokens(1000)),
		result("c", tokens(100)),
		result("d", tokens(50)),
		assistant("done"),
	}
	out, st, err := Compact(msgs, b)
	require.NoError(t, err)
	require.Equal(t, []int{2, 3}, st.Shrunk)
	require.Equal(t, 425*4, len(out[2].Content))
	require.Equal(t, 425*4, len(out[3].Content))
	require.Equal(t, msgs[4], out[4])
	require.Equal(t, 1+0+2000+1000+100+50+1, st.InputTokens)
	require.Equal(t, 1+0+425+425+100+50+1, st.OutputTokens)
	checkCompaction(t, msgs, b, out, st)

	_, _, err = Compact(append([]Message{calls("x", "y", "z")}, result("x", tokens(400)), result("y", tokens(400)), result("z", tokens(400))),
		Budgets{UserTokens: 1000, BatchTokens: 256})
	require.NoError(t, err)

	many := []Message{user("q"), {Role: RoleAssistant}}
	for i := range 100 {
		id := fmt.Sprint("c", i)
		many[1].ToolCalls = append(many[1].ToolCalls, ToolCall{ID: id, Name: "n"})
		many = append(many, result(id, tokens(100)))
	}
	_, _, err = Compact(many, Budgets{UserTokens: 1000, BatchTokens: 1000})
	var te *TranscriptError
	require.ErrorAs(t, err, &te)
	require.Equal(t, 1, te.Index)
	require.Contains(t, te.Error(), "cannot fit")
}

func TestCompactRejectsBudgets(t *testing.T) {
	for _, b := range []Budgets{
		{UserTokens: limits.CheckpointMinBudgetTokens - 1, BatchTokens: 1000},
		{UserTokens: 1000, BatchTokens: limits.CheckpointMinBudgetTokens - 1},
		{UserTokens: limits.CheckpointMaxBudgetTokens + 1, BatchTokens: 1000},
		{UserTokens: 1000, BatchTokens: 0},
	} {
		t.Run(fmt.Sprint(b), func(t *testing.T) {
			_, _, err := Compact([]Message{user("x")}, b)
			require.ErrorContains(t, err, "budgets.")
		})
	}
}

func TestCompactLeavesInputAlone(t *testing.T) {
	msgs := []Message{
		user(tokens(300)),
		{Role: RoleAssistant, Extra: map[string]json.RawMessage{"meta": json.RawMessage(`1`)},
			ToolCalls: []ToolCall{{ID: "a", Name: "n", Extra: map[string]json.RawMessage{"arguments": json.RawMessage(`"{}"`)}}}},
		result("a", tokens(600)),
	}
	want := deepCopy(t, msgs)
	out, _, err := Compact(msgs, Budgets{UserTokens: 256, BatchTokens: 256})
	require.NoError(t, err)
	require.Equal(t, want, msgs)
	out[1].Extra["meta"] = json.RawMessage(`2`)
	out[1].ToolCalls[0].ID = "changed"
	out[1].ToolCalls[0].Extra["arguments"] = json.RawMessage(`"x"`)
	require.Equal(t, want, msgs, "the output shares nothing mutable with the input")
}

func TestCompactProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 100 {
		seed := make([]byte, 64+r.IntN(256))
		for k := range seed {
			seed[k] = byte(r.UintN(256))
		}
		b := Budgets{UserTokens: 256 + r.IntN(3000), BatchTokens: 256 + r.IntN(6000)}
		msgs := genTranscript(seed)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			runCompaction(t, msgs, b)
		})
	}
}

func FuzzCompact(f *testing.F) {
	f.Add([]byte("\x01\x02\x03\x04\x05\x06\x07\x08"), uint16(0), uint16(0))
	f.Add([]byte("\xff\xff\xff\xff\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89"), uint16(100), uint16(2000))
	f.Add([]byte(strings.Repeat("\x07\xf0", 40)), uint16(3000), uint16(300))
	f.Fuzz(func(t *testing.T, seed []byte, ub, bb uint16) {
		b := Budgets{UserTokens: limits.CheckpointMinBudgetTokens + int(ub%4096), BatchTokens: limits.CheckpointMinBudgetTokens + int(bb%8192)}
		runCompaction(t, genTranscript(seed), b)
	})
}

func FuzzCut(f *testing.F) {
	f.Add("hello, world", 80)
	f.Add(strings.Repeat("€𝄞a", 200), 100)
	f.Add("\xff\xfe broken", 76)
	f.Fuzz(func(t *testing.T, s string, budget int) {
		if budget < len(limits.CheckpointMarkerLine) || budget > 1<<20 {
			t.Skip()
		}
		got := cut(s, budget)
		require.LessOrEqual(t, len(got), max(budget, len(s)))
		if len(s) <= budget {
			require.Equal(t, s, got)
			return
		}
		i := strings.Index(got, limits.CheckpointMarkerLine)
		require.GreaterOrEqual(t, i, 0)
		head, tail := got[:i], got[i+len(limits.CheckpointMarkerLine):]
		p := budget - len(limits.CheckpointMarkerLine)
		h := p * limits.CheckpointHeadPercent / 100
		require.True(t, strings.HasPrefix(s, head))
		require.True(t, strings.HasSuffix(s, tail))
		require.LessOrEqual(t, len(head), h)
		require.LessOrEqual(t, len(tail), p-h)
		require.Greater(t, len(head), h-utf8.UTFMax, "the head gives up less than one character")
		require.Greater(t, len(tail), p-h-utf8.UTFMax, "the tail gives up less than one character")
		if utf8.ValidString(s) {
			require.True(t, utf8.ValidString(got))
		}
	})
}

// runCompaction compacts msgs and checks every property of the contract;
// a transcript that cannot fit must be refused, never half-done.
func runCompaction(t *testing.T, msgs []Message, b Budgets) {
	t.Helper()
	require.NoError(t, Validate(msgs), "the generator makes valid transcripts")
	want := deepCopy(t, msgs)
	out, st, err := Compact(msgs, b)
	require.Equal(t, want, msgs, "the input is never modified")
	if err != nil {
		var te *TranscriptError
		require.ErrorAs(t, err, &te)
		require.Contains(t, te.Error(), "cannot fit")
		return
	}
	checkCompaction(t, msgs, b, out, st)
	again, st2, err := Compact(msgs, b)
	require.NoError(t, err)
	require.Equal(t, out, again, "deterministic")
	require.Equal(t, st, st2)
}

// checkCompaction checks out against in: same shape and pairing, every
// message not listed in st.Shrunk unchanged, every listed one a marked
// head+tail of its original, the latest user message and every batch within
// budget, and the token stats right.
func checkCompaction(t *testing.T, in []Message, b Budgets, out []Message, st wire.CompactStats) {
	t.Helper()
	require.Len(t, out, len(in))
	require.NoError(t, Validate(out))
	require.True(t, slices.IsSorted(st.Shrunk))
	inTok, outTok := 0, 0
	for i := range in {
		inTok += limits.EstimateTokens(in[i].Content)
		outTok += limits.EstimateTokens(out[i].Content)
		if !slices.Contains(st.Shrunk, i) {
			require.Equal(t, in[i], out[i], "messages[%d] echoed unchanged", i)
			continue
		}
		o, n := in[i], out[i]
		o.Content, n.Content = "", ""
		require.Equal(t, o, n, "only the content of messages[%d] changes", i)
		k := strings.Index(out[i].Content, limits.CheckpointMarkerLine)
		require.GreaterOrEqual(t, k, 0, "messages[%d] carries the marker", i)
		require.True(t, strings.HasPrefix(in[i].Content, out[i].Content[:k]))
		require.True(t, strings.HasSuffix(in[i].Content, out[i].Content[k+len(limits.CheckpointMarkerLine):]))
		require.Less(t, len(out[i].Content), len(in[i].Content))
	}
	require.Equal(t, inTok, st.InputTokens)
	require.Equal(t, outTok, st.OutputTokens)
	if u := latestUser(out); u >= 0 {
		require.LessOrEqual(t, limits.EstimateTokens(out[u].Content), b.UserTokens)
	}
	for _, bt := range batches(out) {
		sum, inSum := 0, 0
		for _, i := range bt.results {
			sum += limits.EstimateTokens(out[i].Content)
			inSum += limits.EstimateTokens(in[i].Content)
		}
		require.LessOrEqual(t, sum, max(b.BatchTokens, 0))
		if inSum <= b.BatchTokens {
			for _, i := range bt.results {
				require.NotContains(t, st.Shrunk, i, "a batch within budget is untouched")
			}
		}
	}
}

// genTranscript builds a valid transcript from fuzz bytes: turns of a user
// message, assistant messages with up to 9 parallel calls whose results come
// in a shuffled order, and plain assistant replies, with contents from empty
// to tens of KB of mixed one- to four-byte characters.
func genTranscript(seed []byte) []Message {
	pos := 0
	next := func() int {
		if pos >= len(seed) {
			return 0
		}
		pos++
		return int(seed[pos-1])
	}
	pieces := []string{"a", "bc\n", "é", "€", "𝄞", "line\r\n", " "}
	content := func() string {
		n := next()
		size := n * n / 4 // 0 .. 16256 bytes, mostly small
		var sb strings.Builder
		piece := pieces[next()%len(pieces)]
		for sb.Len() < size {
			sb.WriteString(piece)
			if sb.Len()%97 == 0 {
				piece = pieces[(sb.Len()/97)%len(pieces)]
			}
		}
		return sb.String()
	}
	var msgs []Message
	callN := 0
	for pos < len(seed) && len(msgs) < 200 {
		switch next() % 3 {
		case 0:
			msgs = append(msgs, user(content()))
		case 1:
			msgs = append(msgs, Message{Role: RoleAssistant, Content: content()})
		default:
			k := 1 + next()%9
			a := Message{Role: RoleAssistant}
			var ids []string
			for range k {
				id := fmt.Sprint("call_", callN)
				callN++
				ids = append(ids, id)
				a.ToolCalls = append(a.ToolCalls, ToolCall{ID: id, Name: "tools/grep"})
			}
			msgs = append(msgs, a)
			for j := len(ids) - 1; j > 0; j-- {
				s := next() % (j + 1)
				ids[j], ids[s] = ids[s], ids[j]
			}
			for _, id := range ids {
				msgs = append(msgs, result(id, content()))
			}
		}
	}
	return msgs
}

func deepCopy(t *testing.T, msgs []Message) []Message {
	t.Helper()
	if msgs == nil {
		return nil
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.clone()
	}
	return out
}

func TestErrInvariantIsWrapped(t *testing.T) {
	err := check([]Message{user(tokens(300))}, Budgets{UserTokens: 256, BatchTokens: 256})
	require.True(t, errors.Is(err, ErrInvariant))
}
