package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toolrpc/toolrpc/client"
	"github.com/toolrpc/toolrpc/wire"
)

// Example starts a server (here the toolrpc found on $PATH, which the test
// puts there), searches a workspace, streams a command's output, reads an
// error reply, and shuts the server down. The tool methods take and return
// the types of package wire.
func Example() {
	workspace, _ := os.MkdirTemp("", "workspace-")
	defer os.RemoveAll(workspace)
	os.WriteFile(filepath.Join(workspace, "hello.txt"), []byte("hello, world\n"), 0o644)
	state, _ := os.MkdirTemp("", "state-")
	defer os.RemoveAll(state)

	cmd := exec.Command("toolrpc")
	cmd.Stderr = os.Stderr // the server's log
	conn, err := client.Start(cmd, client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	_, err = conn.Initialize(ctx, &protocol.InitializeParams{
		ProcessID:             int32(os.Getpid()), // the server exits if this process dies
		RootURI:               protocol.DocumentURI(uri.File(workspace)),
		InitializationOptions: map[string]any{"dataDir": state},
	})
	if err != nil {
		log.Fatal(err)
	}

	grep, err := conn.Grep(ctx, wire.GrepParams{Pattern: wire.Ptr("hello")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("grep:", grep.Files.Files)

	// The command's output arrives as $/progress while it runs.
	streamed := client.WithProgress(func(value json.RawMessage) {
		var chunk struct {
			Data string `json:"data"`
		}
		json.Unmarshal(value, &chunk)
		fmt.Print("progress: ", chunk.Data)
	})
	bash, err := conn.Bash(ctx, wire.BashParams{Command: "echo streamed"}, streamed)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("bash exit code:", *bash.ExitCode)

	_, err = conn.Read(ctx, wire.ReadParams{Path: "missing.txt"})
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println("read:", e.Code, e.Kind)
	}

	if err := conn.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// grep: [hello.txt]
	// progress: streamed
	// bash exit code: 0
	// read: -32001 NOT_FOUND
}
