package client

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/wire"
)

// SandboxUpdate calls sandbox/update (SPEC §14): the host replaces the
// session's sandbox policy from the next call on (calls already running
// keep theirs) and gets back the policy now in force, resolved, as
// initialize states it. Only the host may widen a policy: it is no tool,
// and the MCP face does not offer it.
func (c *Conn) SandboxUpdate(ctx context.Context, p wire.SandboxPolicy) (*wire.SandboxState, error) {
	return call[wire.SandboxState](ctx, c, "sandbox/update", p, nil)
}

// SandboxState decodes the sandbox member of an initialize result (SPEC
// §14), as Initialize returns it.
func SandboxState(initializeResult json.RawMessage) (*wire.SandboxState, error) {
	var r struct {
		Sandbox *wire.SandboxState `json:"sandbox"`
	}
	if err := json.Unmarshal(initializeResult, &r); err != nil {
		return nil, fmt.Errorf("client: initialize result: %w", err)
	}
	if r.Sandbox == nil {
		return nil, fmt.Errorf("client: initialize result has no sandbox member")
	}
	return r.Sandbox, nil
}

// withSandbox returns a copy of p whose initializationOptions (an object,
// or none) hold policy as their sandbox member.
func withSandbox(p *protocol.InitializeParams, policy wire.SandboxPolicy) (*protocol.InitializeParams, error) {
	c := protocol.InitializeParams{}
	if p != nil {
		c = *p
	}
	opts := map[string]any{}
	if c.InitializationOptions != nil {
		b, err := json.Marshal(c.InitializationOptions)
		if err != nil {
			return nil, fmt.Errorf("client: initializationOptions: %w", err)
		}
		if err := json.Unmarshal(b, &opts); err != nil || opts == nil {
			return nil, fmt.Errorf("client: initializationOptions is not an object, so it cannot hold sandbox")
		}
	}
	opts["sandbox"] = policy
	c.InitializationOptions = opts
	return &c, nil
}
