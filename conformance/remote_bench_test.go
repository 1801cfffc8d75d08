package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRemoteVsLocal measures start-up (process start → initialize
// reply) and round trips (tools/list; a 2000-line tools/read) for the same
// server binary spawned locally and through the test's sshd, in one run:
//
//	go test ./conformance -run '^$' -bench RemoteVsLocal -benchtime 20x -count 3
func BenchmarkRemoteVsLocal(b *testing.B) {
	d := startSSHD(b)
	server := plainServer(b)
	viaSSH := d.writeWrapper(b, server, wrapper{})
	root := b.TempDir()
	var lines strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&lines, "line %d of a file read through the transport\n", i)
	}
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte(lines.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	transports := []struct{ name, bin string }{{"local", server}, {"ssh", viaSSH}}
	for _, tr := range transports {
		b.Run("start-to-initialize/"+tr.name, func(b *testing.B) {
			useBin(b, tr.bin)
			data := b.TempDir()
			for i := 0; i < b.N; i++ {
				s := start(b, withRoot(root), withDataDir(data))
				b.StopTimer()
				s.stop(b)
				b.StartTimer()
			}
		})
	}
	for _, tr := range transports {
		b.Run("tools-list/"+tr.name, func(b *testing.B) {
			useBin(b, tr.bin)
			s := start(b, withRoot(root))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.call(b, "tools/list", nil)
			}
		})
	}
	for _, tr := range transports {
		b.Run("read-2000-lines/"+tr.name, func(b *testing.B) {
			useBin(b, tr.bin)
			s := start(b, withRoot(root))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.call(b, "tools/read", map[string]any{"path": "f.txt"})
			}
		})
	}
}
