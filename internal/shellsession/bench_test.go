//go:build unix

package shellsession

import (
	"context"
	"testing"
	"time"

	"github.com/toolrpc/toolrpc/internal/shell"
)

// benchCommands are the commands of the session rows: the command's own
// time is next to nothing, so what is measured is the session's overhead.
var benchCommands = []string{"true", "pwd", "echo $VAR"}

// BenchmarkSession runs each command in a warm session; its peer,
// BenchmarkFresh, runs it in a fresh bash -c (shell.Run), in the same run.
func BenchmarkSession(b *testing.B) {
	m := NewManager(nil)
	defer m.Close()
	dir := b.TempDir()
	for _, c := range benchCommands {
		b.Run(c, func(b *testing.B) {
			req := Request{Name: "bench", Spec: shell.Spec{Command: c, Dir: dir, Timeout: time.Minute}}
			if _, err := m.Run(context.Background(), req); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := m.Run(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFresh is BenchmarkSession's peer: each command in a fresh bash -c.
func BenchmarkFresh(b *testing.B) {
	dir := b.TempDir()
	for _, c := range benchCommands {
		b.Run(c, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := shell.Run(context.Background(), shell.Spec{Command: c, Dir: dir, Timeout: time.Minute}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
