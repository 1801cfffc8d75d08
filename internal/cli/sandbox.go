package cli

import (
	"flag"

	"github.com/toolrpc/toolrpc/wire"
)

// sandboxFlags are SPEC §14's command-line flags: the host's sandbox policy.
type sandboxFlags struct {
	mode, network      *string
	writable, denyRead rootFlags
}

// addSandboxFlags registers --sandbox, --network, --allow-write and
// --deny-read on fs.
func addSandboxFlags(fs *flag.FlagSet) *sandboxFlags {
	f := &sandboxFlags{
		mode:    fs.String("sandbox", wire.SandboxAuto, "sandbox mode for commands and file tools: auto, off, read-only or workspace-write"),
		network: fs.String("network", wire.NetworkOn, "network for commands: on or off (off: only Unix-domain sockets)"),
	}
	fs.Var(&f.writable, "allow-write", "directory added to the sandbox's writable set, repeatable")
	fs.Var(&f.denyRead, "deny-read", "path added to the sandbox's deny list, repeatable")
	return f
}

// policy returns the policy the flags name (initializationOptions.sandbox
// replaces it).
func (f *sandboxFlags) policy() wire.SandboxPolicy {
	return wire.SandboxPolicy{Mode: *f.mode, Network: *f.network, Writable: f.writable, DenyRead: f.denyRead}
}
