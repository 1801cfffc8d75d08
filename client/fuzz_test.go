package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/toolrpc/toolrpc/client"
)

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// FuzzServerOutput feeds arbitrary bytes as the server's output while a
// call waits: the call must end (with its result or an error), never hang
// or panic, and Kill must then return.
func FuzzServerOutput(f *testing.F) {
	f.Add([]byte("Content-Length: 36\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"result":[]}`))
	f.Add([]byte("Content-Length: 62\r\n\r\n" + `{"jsonrpc":"2.0","method":"$/progress","params":{"token":1}}  `))
	f.Add([]byte("Content-Length: 70\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"data":{"code":"X"}}}  `))
	f.Add([]byte("Content-Length: 3\r\n\r\n{}}"))
	f.Add([]byte("junk\r\nContent-Length: 1\r\n\r\n["))
	f.Fuzz(func(t *testing.T, out []byte) {
		c := client.New(io.NopCloser(bytes.NewReader(out)), nopWriteCloser{io.Discard}, client.Options{
			OnNotification: func(string, json.RawMessage) {},
		})
		var res any
		err := c.Call(context.Background(), "tools/list", nil, &res, client.WithProgress(func(json.RawMessage) {}))
		if err == nil && res == nil && !bytes.Contains(out, []byte("null")) {
			t.Fatalf("a result out of nothing: %q", out)
		}
		c.Kill()
		<-c.Done()
	})
}
