package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolrpc/toolrpc/lspframe"
)

// BenchmarkServeReadSmall measures what a tiny call costs the server (SPEC
// §1, §4): one tools/read of a three-line file, framed in and out over
// pipes, served by Main as a host would run it. Its allocations count every
// goroutine of the server: the codec, the dispatcher and the handler.
func BenchmarkServeReadSmall(b *testing.B) {
	root, data := b.TempDir(), b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "small.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"--root", root, "--data-dir", data}, inR, outW, io.Discard)
		outW.Close()
	}()
	frames := lspframe.NewReader(outR, 1<<24)
	call := func(body string) {
		if err := lspframe.Write(inW, []byte(body)); err != nil {
			b.Fatal(err)
		}
		if _, err := frames.Read(); err != nil {
			b.Fatal(err)
		}
	}
	call(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":"file://%s","capabilities":{},"initializationOptions":{"dataDir":%q,"sessionId":"bench"}}}`, root, data))
	read := `{"jsonrpc":"2.0","id":1,"method":"tools/read","params":{"path":"small.txt"}}`
	call(read)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		call(read)
	}
	b.StopTimer()
	inW.Close()
	<-done
}
