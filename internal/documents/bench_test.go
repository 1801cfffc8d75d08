package documents

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolrpc/toolrpc/internal/roots"
)

// BenchmarkDidChange50MB: one-character didChanges (the JSON notification
// decoded and applied, as the server does) to a 50 MB document, typed at
// spread-out places, with p50 and p99 per change; the peer row copies the
// document once per change, as a store without a rope would.
func BenchmarkDidChange50MB(b *testing.B) {
	line := bytes.Repeat([]byte("x"), 99)
	line = append(line, '\n')
	text := bytes.Repeat(line, 50*1000*1000/len(line)) // 500,000 lines
	lines := len(text) / len(line)
	dir := b.TempDir()
	uri := roots.PathURI(filepath.Join(dir, "big.txt"))
	b.Run("rope", func(b *testing.B) {
		s, _ := testStore(b, UTF16, dir)
		open(b, s, uri, string(text), 1)
		params := make([][]byte, b.N)
		for i := range params {
			l := (i * 7919) % lines
			params[i] = []byte(fmt.Sprintf(`{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"range":{"start":{"line":%d,"character":5},"end":{"line":%d,"character":5}},"text":"y"}]}`,
				uri, i+2, l, l))
		}
		durs := make([]time.Duration, b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			t0 := time.Now()
			s.Handle("textDocument/didChange", params[i])
			durs[i] = time.Since(t0)
		}
		b.StopTimer()
		report(b, durs)
		if d := s.Get(filepath.Join(dir, "big.txt")); d == nil || d.Text.Len() != len(text)+b.N {
			b.Fatal("changes not applied")
		}
	})
	b.Run("copy-peer", func(b *testing.B) {
		cur := text
		durs := make([]time.Duration, b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			t0 := time.Now()
			off := ((i * 7919) % lines) * len(line)
			next := make([]byte, 0, len(cur)+1)
			next = append(append(append(next, cur[:off]...), 'y'), cur[off:]...)
			cur = next
			durs[i] = time.Since(t0)
		}
		b.StopTimer()
		report(b, durs)
	})
}

// report states the p50 and p99 of durs.
func report(b *testing.B, durs []time.Duration) {
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(durs[len(durs)*99/100].Nanoseconds()), "p99-ns")
}
