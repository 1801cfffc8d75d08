package checkpoint

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolrpc/toolrpc/wire"
)

// benchTranscript is 40 small turns, then a batch of 8 results of 48 to 76 KB
// (the criterion-14 shape), then a 120 KB user message: about 620 KB.
func benchTranscript() []Message {
	var msgs []Message
	for i := range 40 {
		msgs = append(msgs, user(fmt.Sprint("question ", i)), assistant(strings.Repeat("answer ", 50)))
	}
	a := Message{Role: RoleAssistant}
	for k := range 8 {
		a.ToolCalls = append(a.ToolCalls, ToolCall{ID: fmt.Sprint("c", k), Name: "tools/grep"})
	}
	msgs = append(msgs, a)
	for k := range 8 {
		msgs = append(msgs, result(fmt.Sprint("c", k), strings.Repeat("match line — ok\n", (12000+1000*k)*4/18)))
	}
	return append(msgs, user(strings.Repeat("0123456789abcdef", 120000/16)))
}

func BenchmarkCompact(b *testing.B) {
	msgs := benchTranscript()
	bud := DefaultBudgets()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Compact(msgs, bud); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompactJSON is the method's path without the disk: decode the
// transcript, compact, encode the result.
func BenchmarkCompactJSON(b *testing.B) {
	raw, err := json.Marshal(benchTranscript())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		msgs, err := ParseTranscript(raw)
		if err != nil {
			b.Fatal(err)
		}
		out, st, err := Compact(msgs, DefaultBudgets())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(struct {
			M []Message
			S wire.CompactStats
		}{out, st}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONRoundTrip is the peer: decoding the same transcript into
// generic maps and encoding it again, which any host does anyway.
func BenchmarkJSONRoundTrip(b *testing.B) {
	raw, err := json.Marshal(benchTranscript())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		var v []map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStoreSave(b *testing.B) {
	st, err := NewStore(b.TempDir(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	data, err := json.Marshal(benchTranscript())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	i := 0
	for b.Loop() {
		i++
		if err := st.Save(fmt.Sprint("cp", i), data); err != nil {
			b.Fatal(err)
		}
	}
}
