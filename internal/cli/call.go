package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toolrpc/toolrpc/client"
	"github.com/toolrpc/toolrpc/methods"
	"github.com/toolrpc/toolrpc/rpc"
)

// callOnce runs a server in-process, initializes it on the working directory
// (or --root), makes one call and prints its result as indented JSON on
// stdout; $/progress data is copied live to stderr. It returns 0 on a result
// and 1 on an error reply. It does not send shutdown, so spill files named in
// the result stay readable by later one-shot calls, which share the session
// "cli" unless --session says otherwise.
func callOnce(cfg methods.Config, method, params string, stdout, stderr io.Writer) int {
	if cfg.SessionID == "" {
		// One-shot calls share a session, so a spill file one call names
		// can be read by the next (it is in that session's scratch root).
		cfg.SessionID = callSessionID
	}
	if !json.Valid([]byte(params)) {
		fmt.Fprintf(stderr, "toolrpc call: params are not valid JSON: %s\n", params)
		return 2
	}
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	go rpc.Serve(context.Background(), serverIn, serverOut, methods.NewToolbox(cfg), rpc.Options{})
	// Left open on return: closing the server's input would end the session
	// (EOF is shutdown, SPEC §1) and remove its scratch dir.
	conn := client.New(clientIn, clientOut, client.Options{})

	ctx := context.Background()
	init := &protocol.InitializeParams{ProcessID: int32(os.Getpid())}
	if cfg.Root == "" {
		wd, _ := os.Getwd()
		init.RootURI = protocol.DocumentURI(uri.File(wd))
	}
	if _, err := conn.Initialize(ctx, init); err != nil {
		return printErr(stderr, err)
	}
	var result json.RawMessage
	progress := client.WithProgress(func(value json.RawMessage) {
		var v struct {
			Data string `json:"data"`
		}
		if json.Unmarshal(value, &v) == nil {
			io.WriteString(stderr, v.Data)
		}
	})
	if err := conn.Call(ctx, method, json.RawMessage(params), &result, progress); err != nil {
		return printErr(stderr, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, result, "", "  "); err != nil {
		out.Write(result)
	}
	out.WriteByte('\n')
	stdout.Write(out.Bytes())
	return 0
}

func printErr(stderr io.Writer, err error) int {
	var e *client.Error
	if errors.As(err, &e) {
		enc := json.NewEncoder(stderr)
		enc.SetEscapeHTML(false) // a "<" in a message stays "<"
		enc.SetIndent("", "  ")
		_ = enc.Encode(e)
		return 1
	}
	fmt.Fprintf(stderr, "toolrpc call: %v\n", err)
	return 1
}

// callSessionID is the session id of one-shot calls without --session.
const callSessionID = "cli"
