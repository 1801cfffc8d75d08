package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toolrpc/toolrpc/client"
	"github.com/toolrpc/toolrpc/wire"
)

// ExampleConn_ProcessStart runs a dev server as a host would: start it and
// wait until it listens, check it answers, read what it logged, stop it.
func ExampleConn_ProcessStart() {
	workspace, _ := os.MkdirTemp("", "workspace-")
	defer os.RemoveAll(workspace)
	os.WriteFile(workspace+"/index.html", []byte("<h1>hi</h1>\n"), 0o644)
	state, _ := os.MkdirTemp("", "state-")
	defer os.RemoveAll(state)
	conn, err := client.Start(exec.Command("toolrpc"), client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, &protocol.InitializeParams{
		ProcessID:             int32(os.Getpid()),
		RootURI:               protocol.DocumentURI(uri.File(workspace)),
		InitializationOptions: map[string]any{"dataDir": state},
	}); err != nil {
		log.Fatal(err)
	}

	timeout := int64(30000)
	up, err := conn.ProcessStart(ctx, client.ProcessStartParams{
		Command: wire.Ptr("python3 -m http.server 0 --bind 127.0.0.1"),
		Label:   wire.Ptr("dev server"),
		Wait:    &client.ProcessWait{Until: []string{"port", "exit"}, TimeoutMs: &timeout},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(up.ID, up.State, up.Reason, len(up.Ports))

	res, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/index.html", up.Ports[0]))
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	fmt.Println("GET", res.Status)

	logged, err := conn.ProcessRead(ctx, client.ProcessReadParams{ID: &up.ID,
		Wait: &client.ProcessWait{Until: []string{"pattern"}, Pattern: wire.Ptr(`"GET /index.html`), TimeoutMs: &timeout}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(logged.Reason)

	stopped, err := conn.ProcessSignal(ctx, client.ProcessSignalParams{ID: &up.ID, Signal: wire.Ptr("TERM")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(stopped.State, stopped.Reason)
	// Output:
	// p1 running port 1
	// GET 200 OK
	// pattern
	// exited signal
}
