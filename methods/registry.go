package methods

import (
	"context"
	"encoding/json"

	"github.com/toolrpc/toolrpc/rpc"
)

// Method is one JSON-RPC method of the toolbox.
type Method struct {
	// Name is the JSON-RPC method name, e.g. "tools/read".
	Name string
	// Tool marks the methods listed by tools/list.
	Tool bool
	// Describe states the method's limits, generated from package limits,
	// in the words of face f.
	Describe func(f Face) string
	// InputSchema is the JSON Schema of the params, generated from their
	// wire type.
	InputSchema json.RawMessage
	// OutputSchema is the JSON Schema of the result (or the error object),
	// generated from its wire type; nil for the methods tools/list does not
	// list but those a host calls with typed params (sandbox/update).
	OutputSchema json.RawMessage
	// Family is the tool family of a dialect tool (SPEC §16); "" is
	// toolrpc's own.
	Family string
	// ModelName is a dialect tool's name in its family
	// ("str_replace_based_edit_tool"); "" for toolrpc's own.
	ModelName string
	// Call runs one request against the session.
	Call func(ctx context.Context, s *Session, call *rpc.Call) (any, error)
}

// table is every method the toolbox serves, sorted by name: the one list.
// It is filled by init only because tools/list lists the table.
var (
	table  []Method
	byName map[string]Method
)

func init() {
	table = []Method{
		anthropicBashMethod(),
		editorMethod(),
		compactMethod(),
		loadMethod(),
	}
	table = append(table, geminiMethods()...) // gemini/*, sorted
	table = append(table, []Method{
		applyPatchMethod(),
		execCommandMethod(),
		openAIShellMethod(),
		writeStdinMethod(),
		sandboxUpdateMethod(),
		bashMethod(),
		editMethod(),
		globMethod(),
		grepMethod(),
		listMethod(),
		processListMethod(),
		processReadMethod(),
		processSignalMethod(),
		processStartMethod(),
		processWriteMethod(),
		readMethod(),
		writeMethod(),
	}...)
	byName = make(map[string]Method, len(table))
	for i, m := range table {
		if _, dup := byName[m.Name]; dup || i > 0 && table[i-1].Name >= m.Name {
			panic("methods: method table is not sorted and unique at " + m.Name)
		}
		byName[m.Name] = m
	}
}

// All returns every method, sorted by name.
func All() []Method { return append([]Method(nil), table...) }

// Lookup returns the method called name.
func Lookup(name string) (Method, bool) {
	m, ok := byName[name]
	return m, ok
}
