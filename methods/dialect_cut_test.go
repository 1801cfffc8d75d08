package methods

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/wire"
)

// FuzzMaxOutputCut checks openai/shell's max_output_length cuts: stdout's
// head and stderr's tail are whole characters of the stream, at most n
// bytes of it, and the marker counts the stream's bytes.
func FuzzMaxOutputCut(f *testing.F) {
	f.Add("héllo\nwörld\n", 3)
	f.Add("abc", 0)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if !utf8.ValidString(s) || n < 0 || n > 1<<20 {
			return
		}
		info := wire.StreamInfo{Bytes: len(s), Lines: strings.Count(s, "\n")}
		head, tail := headChars(s, n, info), tailChars(s, n, info)
		if len(s) <= n {
			if head != s || tail != s {
				t.Fatalf("a stream within the limit was changed")
			}
			return
		}
		kept, marker, ok := strings.Cut(head, "\n[... cut at max_output_length")
		if !ok || !strings.HasPrefix(s, kept) || len(kept) > n || !utf8.ValidString(kept) {
			t.Fatalf("head %q is not a whole-character prefix of at most %d bytes", head, n)
		}
		if !strings.Contains(marker, " of "+strconv.Itoa(len(s))+" bytes") {
			t.Fatalf("head marker does not count the stream's bytes: %q", marker)
		}
		i := strings.Index(tail, "]\n")
		if i < 0 || !strings.HasSuffix(s, tail[i+2:]) || len(tail[i+2:]) > n || !utf8.ValidString(tail[i+2:]) {
			t.Fatalf("tail %q is not a whole-character suffix of at most %d bytes", tail, n)
		}
	})
}
