package conformance

import (
	"testing"
)

// BenchmarkToolsListRoundTrip measures one tools/list request → reply on a
// single connection, sequentially (the server's per-call overhead).
func BenchmarkToolsListRoundTrip(b *testing.B) {
	s := start(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.call(b, "tools/list", nil)
	}
}

// BenchmarkStartToInitialize measures process start → initialize reply.
func BenchmarkStartToInitialize(b *testing.B) {
	root, data := b.TempDir(), b.TempDir()
	for i := 0; i < b.N; i++ {
		s := start(b, withRoot(root), withDataDir(data))
		b.StopTimer()
		s.stop(b)
		b.StartTimer()
	}
}
