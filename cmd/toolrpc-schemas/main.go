// Command toolrpc-schemas prints, as a JSON array of {name, description,
// inputSchema, outputSchema}, the host methods that tools/list does not list
// but that take typed params and return a typed result (sandbox/update, SPEC
// §14): the TypeScript client's generator (clients/typescript/scripts/
// generate.mjs) makes their types from it, as it makes the tools' types from
// tools/list.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolrpc/toolrpc/methods"
)

// hostMethod is one printed entry.
type hostMethod struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

func main() {
	out := []hostMethod{}
	for _, m := range methods.All() {
		if m.Tool || m.InputSchema == nil || m.OutputSchema == nil {
			continue
		}
		out = append(out, hostMethod{Name: m.Name, Description: m.Describe(methods.LSP), InputSchema: m.InputSchema, OutputSchema: m.OutputSchema})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolrpc-schemas:", err)
		os.Exit(1)
	}
	fmt.Println(string(b))
}
