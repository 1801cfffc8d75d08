//go:build linux

package process

import (
	"bytes"
	"context"
	"testing"
)

// BenchmarkRenderer_PlainLines renders plain text lines (yes output).
func BenchmarkRenderer_PlainLines(b *testing.B) {
	chunk := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog\n"), 3000)
	r := NewRenderer(120, 40, false, func([]byte) {})
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		_, _ = r.Write(chunk)
	}
}

// BenchmarkProbe is one look for a blocked read on a quiet process: what
// a waiting call pays per poll.
func BenchmarkProbe(b *testing.B) {
	dir := b.TempDir()
	p, err := Start(context.Background(), Spec{Command: "sleep 60", Dir: dir, Log: dir + "/p.log"})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for b.Loop() {
		probeInput(p.g.Pids(), p.tg)
	}
}
