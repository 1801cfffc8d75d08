package methods

import (
	"context"
	"encoding/json"
	"errors"
	"sort"

	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// DialectReply is a dialect tool's result (SPEC §16): the value goes
// unchanged into the host's reply to the model; ModelText and ModelFailed
// are what the MCP face shows (its text content and isError).
type DialectReply interface {
	ModelText() string
	ModelFailed() bool
}

// dialectMethod is the Method of a dialect tool: listed only when its
// family is in the session's toolset, its result a DialectReply, and every
// failure the model can act on a result, not a JSON-RPC error (params that
// are not a JSON object are the host's error).
func dialectMethod(family, name string, describe func(Face) string, in, out json.RawMessage,
	run func(ctx context.Context, s *Session, call *rpc.Call) DialectReply) Method {
	return Method{
		Name: family + "/" + name, Tool: true, Family: family, ModelName: name,
		Describe: describe, InputSchema: in, OutputSchema: out,
		Call: func(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(call.Params, &obj); err != nil || obj == nil {
				return nil, rpc.Errorf(rpc.InvalidArgument, "%s/%s: params must be the model's call input, a JSON object", family, name)
			}
			return run(ctx, s, call), nil
		},
	}
}

// modelError is the text a dialect shows for err: its §10 code, then its
// message.
func modelError(err error) string {
	var e *rpc.Error
	if errors.As(err, &e) {
		return e.Error()
	}
	return rpc.AsError(refusal(err)).Error()
}

// dialectFile is a file a dialect edit resolved: where it is and, once
// read, what it held.
type dialectFile struct {
	rp  roots.Path
	doc *dialectDoc // nil: not read, or no such file
}

// resolveEdit resolves path for a dialect edit by tool: writable (§3) and
// allowed by the sandbox policy (§14).
func resolveEdit(s *Session, tool, path string) (roots.Path, error) {
	rp, err := resolveWritable(s, tool, path)
	if err != nil {
		return rp, err
	}
	return rp, sandboxWrite(s, rp)
}

// readDoc reads the file rp for tool: exists is false when there is none.
func readDoc(rp roots.Path, tool string) (doc *lineedit.Doc, exists bool, err error) {
	doc, err = lineedit.ReadDoc(rp.Abs, rp.Display, tool)
	var e *lineedit.Error
	if errors.As(err, &e) && e.Refusal == lineedit.NotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, refusal(err)
	}
	return doc, true, nil
}

// lockAll takes the edit locks of every path, in one order, and returns
// the function that releases them.
func lockAll(s *Session, abs []string) func() {
	sort.Strings(abs)
	var unlocks []func()
	for i, a := range abs {
		if i > 0 && abs[i-1] == a {
			continue
		}
		unlocks = append(unlocks, s.locks.Lock(a))
	}
	return func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
}

// applyPatchReply is openai/apply_patch's DialectReply.
type applyPatchReply wire.ApplyPatchResult

func (r applyPatchReply) ModelText() string { return r.Output }
func (r applyPatchReply) ModelFailed() bool { return r.Status != "completed" }

// MarshalJSON keeps the wire shape.
func (r applyPatchReply) MarshalJSON() ([]byte, error) { return json.Marshal(wire.ApplyPatchResult(r)) }

// toolReply is an Anthropic tool's DialectReply.
type toolReply wire.ToolResult

func (r toolReply) ModelText() string { return r.Content }
func (r toolReply) ModelFailed() bool { return r.IsError }

// MarshalJSON keeps the wire shape.
func (r toolReply) MarshalJSON() ([]byte, error) { return json.Marshal(wire.ToolResult(r)) }
