package methods

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/toolrpc/toolrpc/rpc"
)

// Method is one JSON-RPC method of the toolbox.
type Method struct {
	// Name is the JSON-RPC method name, e.g. "tools/read".
	Name string
	// Tool marks the methods listed by tools/list.
	Tool bool
	// Description states the method's limits, generated from package limits.
	Description string
	// InputSchema is the JSON Schema of the params.
	InputSchema json.RawMessage
	// Call runs one request against the session.
	Call func(ctx context.Context, s *Session, call *rpc.Call) (any, error)
}

var registry = map[string]Method{}

// register adds m to the toolbox; files call it from init. A duplicate name panics.
func register(m Method) {
	if _, dup := registry[m.Name]; dup {
		panic("methods: duplicate method " + m.Name)
	}
	registry[m.Name] = m
}

// Names returns the registered method names, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the method registered under name.
func Lookup(name string) (Method, bool) {
	m, ok := registry[name]
	return m, ok
}

// All returns every registered method, sorted by name.
func All() []Method {
	out := make([]Method, 0, len(registry))
	for _, n := range Names() {
		out = append(out, registry[n])
	}
	return out
}
