package methods

import (
	"context"

	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// sandboxUpdateMethod is sandbox/update (SPEC §14): the host replaces the
// session's sandbox policy from the next call on. It is not a tool: tools/list
// does not list it and the MCP face does not offer it.
func sandboxUpdateMethod() Method {
	return Method{
		Name: "sandbox/update",
		Describe: func(Face) string {
			return "Replaces the session's sandbox policy (mode, network, writable, denyRead, protect) from the next call on; " +
				"calls already running keep theirs. Returns the policy now in force, as initialize states it."
		},
		InputSchema: wire.InputSchema[wire.SandboxPolicy](func(p wire.Props) {
			p["mode"].Enum = wire.Enum([]string{wire.SandboxAuto, wire.SandboxOff, wire.SandboxReadOnly, wire.SandboxWorkspaceWrite})
			p["network"].Enum = wire.Enum([]string{wire.NetworkOn, wire.NetworkOff})
		}),
		// Not for tools/list: cmd/toolrpc-schemas prints it, so the
		// TypeScript client's types are generated from it.
		OutputSchema: wire.OutputSchema[wire.SandboxState](nil),
		Call:         sandboxUpdateCall,
	}
}

func sandboxUpdateCall(_ context.Context, s *Session, call *rpc.Call) (any, error) {
	var p wire.SandboxPolicy
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	pol, err := s.setPolicy(p)
	if err != nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "sandbox/update: %v", err)
	}
	return pol.State(), nil
}
