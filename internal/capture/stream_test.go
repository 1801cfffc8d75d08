package capture

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

type sink struct {
	mu     sync.Mutex
	chunks []Chunk
	fail   bool
}

func (s *sink) send(c Chunk) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return errors.New("closed")
	}
	s.chunks = append(s.chunks, c)
	return nil
}

func smallConfig() streamConfig {
	return streamConfig{chunkBytes: 8, flush: time.Millisecond, fullBytes: 64, throttle: 10 * time.Millisecond}
}

func TestStreamerFullFidelity(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		piece int
	}{
		{"ascii", "hello\nworld\nthis is more than one chunk\n", 5},
		{"multibyte one byte at a time", "héllo wörld ✓ 𝄞 ok ✓✓✓", 1},
		{"multibyte at chunk edge", "aaaaaaa✓bbbbbbb𝄞", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var k sink
			s := newStreamer("stdout", k.send, smallConfig())
			writeIn(s, []byte(tc.in), tc.piece)
			s.Close()
			var got strings.Builder
			for i, c := range k.chunks {
				require.Equal(t, i, c.Seq)
				require.Equal(t, "stdout", c.Stream)
				require.True(t, utf8.ValidString(c.Data))
				require.Zero(t, c.SkippedBytes)
				require.LessOrEqual(t, len(c.Data), 8)
				got.WriteString(c.Data)
			}
			require.Equal(t, tc.in, got.String())
			require.Equal(t, len(k.chunks), s.Chunks())
		})
	}
}

func TestStreamerRepairsInvalidBytes(t *testing.T) {
	var k sink
	s := newStreamer("stderr", k.send, smallConfig())
	_, _ = s.Write([]byte("a\xffb\xe2\x82"))
	s.Close()
	var got strings.Builder
	for _, c := range k.chunks {
		got.WriteString(c.Data)
	}
	require.Equal(t, "a\uFFFDb\uFFFD\uFFFD", got.String())
}

func TestStreamerThrottlesPastFullBytes(t *testing.T) {
	var k sink
	cfg := smallConfig()
	s := newStreamer("stdout", k.send, cfg)
	in := strings.Repeat("0123456789", 1000) // 10,000 bytes, far past 64
	writeIn(s, []byte(in), 100)
	s.Close()
	var sent, skipped int64
	var full strings.Builder
	for i, c := range k.chunks {
		require.Equal(t, i, c.Seq)
		sent += int64(len(c.Data))
		skipped += c.SkippedBytes
		if sent+skipped <= cfg.fullBytes {
			full.WriteString(c.Data)
		}
	}
	require.Equal(t, int64(len(in)), sent+skipped, "every byte is sent or counted as skipped")
	require.Equal(t, in[:cfg.fullBytes], full.String(), "the first fullBytes are streamed in full")
	require.True(t, strings.HasSuffix(in, k.chunks[len(k.chunks)-1].Data), "the last chunk carries the latest output")
}

func TestStreamerStopsWhenSendFails(t *testing.T) {
	k := sink{fail: true}
	s := newStreamer("stdout", k.send, smallConfig())
	writeIn(s, []byte(strings.Repeat("x", 1000)), 10)
	s.Close()
	require.Zero(t, s.Chunks())
}

func FuzzStreamer(f *testing.F) {
	f.Add([]byte("héllo ✓ 𝄞"), uint8(1))
	f.Add([]byte("a\xffb\xe2\x82"), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, piece uint8) {
		var k sink
		cfg := smallConfig()
		cfg.fullBytes = 1 << 20
		s := newStreamer("stdout", k.send, cfg)
		writeIn(s, in, int(piece%7)+1)
		s.Close()
		var got strings.Builder
		for i, c := range k.chunks {
			if c.Seq != i || !utf8.ValidString(c.Data) {
				t.Fatalf("chunk %d: seq %d valid %v", i, c.Seq, utf8.ValidString(c.Data))
			}
			got.WriteString(c.Data)
		}
		if utf8.Valid(in) && got.String() != string(in) {
			t.Fatalf("streamed %q, want %q", got.String(), in)
		}
	})
}

func BenchmarkStreamerThrottled(b *testing.B) {
	p := []byte(strings.Repeat(strings.Repeat("a", 99)+"\n", 2600))
	s := NewStreamer("stdout", func(Chunk) error { return nil })
	defer s.Close()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		_, _ = s.Write(p)
	}
}

// gate is a send that blocks until opened, then records chunks.
type gate struct {
	sink
	open chan struct{}
}

func (g *gate) send(c Chunk) error {
	<-g.open
	return g.sink.send(c)
}

// TestStreamersSharePendingBudget: two Streamers share a 16-byte budget of
// unsent full-fidelity output. While sends are stuck, Write waits once the
// budget is held (pacing the command) instead of buffering more; once sends
// go through, every byte arrives in order and the budget is whole again.
// Before the shared bound each Streamer buffered up to fullBytes.
func TestStreamersSharePendingBudget(t *testing.T) {
	b := newBudget(16)
	g := &gate{open: make(chan struct{})}
	cfg := smallConfig()
	cfg.fullBytes = 1000
	a := newStreamerBudget("stdout", g.send, cfg, b)
	c := newStreamerBudget("stderr", g.send, cfg, b)
	in := strings.Repeat("0123456789", 10)
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		writeIn(a, []byte(in), 7)
		writeIn(c, []byte(in), 7)
	}()
	require.Eventually(t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.free == 0
	}, 5*time.Second, time.Millisecond)
	select {
	case <-wrote:
		t.Fatal("Write buffered past the shared budget while sends were stuck")
	case <-time.After(20 * time.Millisecond): // not a speed assertion: Write must still be waiting
	}
	close(g.open)
	<-wrote
	a.Close()
	c.Close()
	got := map[string]string{}
	for _, ch := range g.chunks {
		got[ch.Stream] += ch.Data
	}
	require.Equal(t, map[string]string{"stdout": in, "stderr": in}, got)
	require.Equal(t, 16, b.free)
}

// TestStreamerFailureReleasesBudget: a Streamer whose send fails gives its
// budget back, and a Write waiting for budget held by it returns.
func TestStreamerFailureReleasesBudget(t *testing.T) {
	b := newBudget(8)
	var k sink
	k.fail = true
	cfg := smallConfig()
	cfg.fullBytes = 1000
	s := newStreamerBudget("stdout", k.send, cfg, b)
	done := make(chan struct{})
	go func() {
		defer close(done)
		writeIn(s, []byte(strings.Repeat("x", 100)), 10)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Write still waiting for budget after send failed")
	}
	s.Close()
	require.Equal(t, 8, b.free)
}
