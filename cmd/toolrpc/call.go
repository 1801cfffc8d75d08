package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/sourcegraph/jsonrpc2"

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
	go rpc.Serve(context.Background(), serverIn, serverOut, methods.NewToolbox(cfg), rpc.Options{Logger: log.New(io.Discard, "", 0)})

	progress := jsonrpc2.HandlerWithError(func(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
		if r.Method == "$/progress" && r.Params != nil {
			var p struct {
				Value struct {
					Data string `json:"data"`
				} `json:"value"`
			}
			if json.Unmarshal(*r.Params, &p) == nil {
				io.WriteString(stderr, p.Value.Data)
			}
		}
		return nil, nil
	})
	conn := jsonrpc2.NewConn(context.Background(),
		jsonrpc2.NewBufferedStream(pipeRW{clientIn, clientOut}, jsonrpc2.VSCodeObjectCodec{}),
		progress, jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	defer conn.Close()

	ctx := context.Background()
	wd, _ := os.Getwd()
	init := map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{}}
	if cfg.Root == "" {
		init["rootUri"] = "file://" + wd
	}
	var initResult json.RawMessage
	if err := conn.Call(ctx, "initialize", init, &initResult); err != nil {
		return printErr(stderr, err)
	}
	_ = conn.Notify(ctx, "initialized", map[string]any{})
	var result json.RawMessage
	raw := json.RawMessage(params)
	if err := conn.Call(ctx, method, &raw, &result); err != nil {
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
	if e, ok := err.(*jsonrpc2.Error); ok {
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

// pipeRW joins the two ends the client uses into one ReadWriteCloser.
type pipeRW struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p pipeRW) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRW) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRW) Close() error {
	p.w.Close()
	return p.r.Close()
}
