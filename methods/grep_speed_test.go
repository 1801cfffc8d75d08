package methods

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/search"
	"github.com/toolrpc/toolrpc/sourceset"
)

// BenchmarkGrepGoals runs every grep row of the issue 4 goal table over
// $TOOLRPC_BENCH_CORPUS, in process, so that each row can be profiled alone
// (-cpuprofile with -bench 'GrepGoals/<row>').
func BenchmarkGrepGoals(b *testing.B) {
	root := os.Getenv("TOOLRPC_BENCH_CORPUS")
	if root == "" {
		b.Skip("TOOLRPC_BENCH_CORPUS not set")
	}
	s, err := NewSession(Config{Root: root, DataDir: b.TempDir(), SessionID: "grep-goals"}, &protocol.InitializeParams{})
	require.NoError(b, err)
	b.Cleanup(s.Index.Close)
	for _, tc := range []struct{ name, params string }{
		{"count", `{"pattern":"func main","outputMode":"count","headLimit":100000}`},
		{"files", `{"pattern":"sync\\.Once","headLimit":100000}`},
		{"fold", `{"pattern":"readfull","caseInsensitive":true,"outputMode":"content","headLimit":100000}`},
		{"fold2", `{"pattern":"mutexprofile","caseInsensitive":true,"outputMode":"content","headLimit":100000}`},
		{"newest", `{"pattern":"func ","outputMode":"content","headLimit":200}`},
		{"weak", `{"pattern":"[A-Z]{3,}_[A-Z]+ = ","outputMode":"count","headLimit":100000}`},
		{"none", `{"pattern":"[0-9]{10}","outputMode":"count","headLimit":100000}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := grepCall(context.Background(), s, rpc.NewCall("tools/grep", json.RawMessage(`1`), json.RawMessage(tc.params), nil)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestGrepChunkBytesByMode(t *testing.T) {
	tests := []struct {
		name   string
		params string
		want   int
	}{
		{"count", `{"pattern":"x","outputMode":"count"}`, limits.SearchLineChunkBytes},
		{"content", `{"pattern":"x","outputMode":"content"}`, limits.SearchLineChunkBytes},
		{"context", `{"pattern":"x","outputMode":"content","context":1}`, limits.SearchChunkBytes},
		{"before", `{"pattern":"x","outputMode":"content","before":1}`, limits.SearchChunkBytes},
		{"multiline", `{"pattern":"x","multiline":true}`, limits.SearchChunkBytes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, req, err := grepDecode(rpc.NewCall("tools/grep", json.RawMessage(`1`), json.RawMessage(tc.params), nil))
			require.NoError(t, err)
			require.Equal(t, tc.want, req.ChunkBytes)
		})
	}
}

// TestGrepLineChunksLargeFile searches a file several line-chunks long, with
// matches on the lines around each chunk edge, and requires every match line.
func TestGrepLineChunksLargeFile(t *testing.T) {
	s := grepTestSession(t)
	var b strings.Builder
	var want []int
	line := strings.Repeat("a", 99) + "\n" // 100 bytes
	for n := 1; b.Len() < 3*limits.SearchLineChunkBytes+500; n++ {
		if n%2621 == 0 || n%2621 == 1 || n%2622 == 0 || n == 1 {
			b.WriteString("needle" + line[6:])
			want = append(want, n)
			continue
		}
		b.WriteString(line)
	}
	grepTestFiles(t, s, [][2]string{{"big.txt", b.String()}})
	got, rerr := grepTestRun[search.ContentResult](t, s, "tools/grep", map[string]any{"pattern": "^needle", "outputMode": "content", "headLimit": 100000})
	require.Nil(t, rerr)
	var lines []int
	for _, m := range got.Matches {
		lines = append(lines, m.Line)
	}
	require.Equal(t, want, lines)
	h := sourceset.NewHash()
	h.Write([]byte(b.String()))
	require.Equal(t, map[string]string{"big.txt": sourceset.TagSum(h.Sum32())}, got.Tags, "the tag covers every chunk")
	counts, rerr := grepTestRun[search.CountResult](t, s, "tools/grep", map[string]any{"pattern": "^needle", "outputMode": "count"})
	require.Nil(t, rerr)
	require.Equal(t, []search.CountEntry{{Path: "big.txt", Count: len(want)}}, counts.Counts)
}
