package checkpoint

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/wire"
)

// Budgets are the token budgets of one compaction.
type Budgets struct {
	// UserTokens bounds the latest user message.
	UserTokens int
	// BatchTokens bounds the tool results answering one assistant message.
	BatchTokens int
}

// DefaultBudgets returns the budgets of SPEC §2.
func DefaultBudgets() Budgets {
	return Budgets{UserTokens: limits.CheckpointUserTokens, BatchTokens: limits.CheckpointBatchTokens}
}

// Validate reports a budget outside CheckpointMinBudgetTokens..CheckpointMaxBudgetTokens.
func (b Budgets) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"userTokens", b.UserTokens}, {"batchTokens", b.BatchTokens}} {
		if f.v < limits.CheckpointMinBudgetTokens || f.v > limits.CheckpointMaxBudgetTokens {
			return fmt.Errorf("budgets.%s %d is outside %d..%d", f.name, f.v,
				limits.CheckpointMinBudgetTokens, limits.CheckpointMaxBudgetTokens)
		}
	}
	return nil
}

// ErrInvariant is wrapped by the error Compact returns when its own output
// fails re-validation or re-estimation; such output is never returned.
var ErrInvariant = errors.New("checkpoint invariant broken")

// markerTokens is the smallest token target a cut message can have: the
// marker line alone.
var markerTokens = limits.EstimateTokens(limits.CheckpointMarkerLine)

// Compact returns the rebuilt context of msgs: the same messages in the same
// order, with the latest user message cut to b.UserTokens and every batch of
// tool results cut to b.BatchTokens (see the package doc). msgs is not
// modified and the result shares nothing mutable with it. A transcript that
// fails Validate, or a batch that cannot fit even with every cut result
// reduced to its marker, gives a *TranscriptError. The output is
// re-validated and re-estimated before it is returned; the same input always
// gives the same output.
func Compact(msgs []Message, b Budgets) ([]Message, wire.CompactStats, error) {
	if err := b.Validate(); err != nil {
		return nil, wire.CompactStats{}, err
	}
	if err := Validate(msgs); err != nil {
		return nil, wire.CompactStats{}, err
	}
	out := make([]Message, len(msgs))
	st := wire.CompactStats{Shrunk: []int{}}
	for i, m := range msgs {
		out[i] = m.clone()
		st.InputTokens += limits.EstimateTokens(m.Content)
	}
	shrink := func(i, tokens int) {
		out[i].Content = cut(msgs[i].Content, tokens*limits.BytesPerToken)
		st.Shrunk = append(st.Shrunk, i)
	}

	if u := latestUser(msgs); u >= 0 && limits.EstimateTokens(msgs[u].Content) > b.UserTokens {
		shrink(u, b.UserTokens)
	}
	for _, bt := range batches(msgs) {
		tokens := make([]int, len(bt.results))
		for k, i := range bt.results {
			tokens[k] = limits.EstimateTokens(msgs[i].Content)
		}
		targets, ok := fill(tokens, b.BatchTokens)
		if !ok {
			return nil, wire.CompactStats{}, invalid(bt.call,
				"its %d tool results cannot fit %d tokens even with each cut result reduced to the %d-token marker; raise budgets.batchTokens",
				len(bt.results), b.BatchTokens, markerTokens)
		}
		for k, i := range bt.results {
			if targets[k] < tokens[k] {
				shrink(i, targets[k])
			}
		}
	}
	sort.Ints(st.Shrunk)
	for _, m := range out {
		st.OutputTokens += limits.EstimateTokens(m.Content)
	}
	if err := check(out, b); err != nil {
		return nil, wire.CompactStats{}, err
	}
	return out, st, nil
}

// check re-validates and re-estimates a compacted transcript.
func check(out []Message, b Budgets) error {
	if err := Validate(out); err != nil {
		return fmt.Errorf("%w: compacted transcript broke pairing: %w", ErrInvariant, err)
	}
	if u := latestUser(out); u >= 0 {
		if got := limits.EstimateTokens(out[u].Content); got > b.UserTokens {
			return fmt.Errorf("%w: compacted messages[%d] re-estimated at %d tokens, over the user budget %d", ErrInvariant, u, got, b.UserTokens)
		}
	}
	for _, bt := range batches(out) {
		sum := 0
		for _, i := range bt.results {
			sum += limits.EstimateTokens(out[i].Content)
		}
		if sum > b.BatchTokens {
			return fmt.Errorf("%w: compacted batch of messages[%d] re-estimated at %d tokens, over the batch budget %d", ErrInvariant, bt.call, sum, b.BatchTokens)
		}
	}
	return nil
}

func latestUser(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleUser {
			return i
		}
	}
	return -1
}

// batch is an assistant message with tool calls and the indexes of the tool
// messages answering them.
type batch struct {
	call    int
	results []int
}

// batches lists the batches of a valid transcript: in one, the results are
// the run of tool messages following the assistant message.
func batches(msgs []Message) []batch {
	var out []batch
	for i := 0; i < len(msgs); i++ {
		if msgs[i].Role != RoleAssistant || len(msgs[i].ToolCalls) == 0 {
			continue
		}
		bt := batch{call: i}
		for j := i + 1; j < len(msgs) && msgs[j].Role == RoleTool; j++ {
			bt.results = append(bt.results, j)
		}
		out = append(out, bt)
	}
	return out
}

// fill water-fills budget over results of the given token sizes: it finds
// the largest cap c with Σ min(t, c) ≤ budget, gives every result above c the
// target c, and hands the leftover tokens (fewer than the results above c),
// one each, to the first of them in transcript order. A target below a
// result's size means that result is cut. ok is false when a result would
// have to be cut below the marker line.
func fill(tokens []int, budget int) (targets []int, ok bool) {
	targets = make([]int, len(tokens))
	total, hi := 0, 0
	for _, t := range tokens {
		total += t
		hi = max(hi, t)
	}
	copy(targets, tokens)
	if total <= budget {
		return targets, true
	}
	sum := func(c int) int {
		s := 0
		for _, t := range tokens {
			s += min(t, c)
		}
		return s
	}
	// Largest c in [0, hi) with sum(c) <= budget; sum(0) = 0 <= budget and
	// sum(hi) = total > budget.
	c := sort.Search(hi, func(c int) bool { return sum(c+1) > budget })
	if c < markerTokens {
		return nil, false
	}
	slack := budget - sum(c)
	for k, t := range tokens {
		if t <= c {
			continue
		}
		targets[k] = c
		if slack > 0 {
			targets[k]++
			slack--
		}
	}
	return targets, true
}

// cut returns s cut to at most budget bytes: the longest prefix of at most
// h = ⌊p·75/100⌋ bytes, the marker line, and the longest suffix of at most
// p−h bytes, where p = budget − len(CheckpointMarkerLine); both cuts fall on
// character boundaries. budget must be at least the marker line's length; s
// is returned whole when it fits.
func cut(s string, budget int) string {
	if len(s) <= budget {
		return s
	}
	p := max(budget-len(limits.CheckpointMarkerLine), 0)
	h := p * limits.CheckpointHeadPercent / 100
	head := s[:prefixEnd(s, h)]
	tail := s[suffixStart(s, p-h):]
	var sb strings.Builder
	sb.Grow(len(head) + len(limits.CheckpointMarkerLine) + len(tail))
	sb.WriteString(head)
	sb.WriteString(limits.CheckpointMarkerLine)
	sb.WriteString(tail)
	return sb.String()
}

// prefixEnd returns the end of the longest prefix of s with at most n bytes
// that does not split a character. It backs off at most utf8.UTFMax−1 bytes:
// further back there is no character to split, only invalid bytes.
func prefixEnd(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for k := 0; k < utf8.UTFMax-1 && n > 0 && !utf8.RuneStart(s[n]); k++ {
		n--
	}
	return n
}

// suffixStart returns the start of the longest suffix of s with at most n
// bytes that does not split a character, moving at most utf8.UTFMax−1 bytes
// like prefixEnd.
func suffixStart(s string, n int) int {
	if n >= len(s) {
		return 0
	}
	i := len(s) - n
	for k := 0; k < utf8.UTFMax-1 && i < len(s) && !utf8.RuneStart(s[i]); k++ {
		i++
	}
	return i
}
