package wire

// Sandbox modes and network settings of SPEC §14.
const (
	SandboxAuto           = "auto"
	SandboxOff            = "off"
	SandboxReadOnly       = "read-only"
	SandboxWorkspaceWrite = "workspace-write"
	NetworkOn             = "on"
	NetworkOff            = "off"
)

// SandboxPolicy is SandboxPolicy of SPEC §14: what the host allows commands
// and file tools. It comes only from the host (initializationOptions.sandbox,
// the command line, sandbox/update).
type SandboxPolicy struct {
	Mode     string   `json:"mode,omitempty" jsonschema:"auto (default), off, read-only or workspace-write"`
	Network  string   `json:"network,omitempty" jsonschema:"on (default) or off"`
	Writable []string `json:"writable,omitempty" jsonschema:"paths added to the writable set"`
	DenyRead []string `json:"denyRead,omitempty" jsonschema:"paths added to the default deny list"`
	Protect  []string `json:"protect,omitempty" jsonschema:"extra read-only paths inside writable roots"`
}

// SandboxState is the policy in force as initialize and sandbox/update state
// it (SPEC §14): every field resolved to absolute paths, the mechanisms that
// enforce it, and the gaps this machine leaves.
type SandboxState struct {
	Mode       string   `json:"mode" jsonschema:"the effective mode: off, read-only or workspace-write"`
	Requested  string   `json:"requested" jsonschema:"the mode the host asked for"`
	Reason     string   `json:"reason,omitempty" jsonschema:"why auto resolved to off"`
	Network    string   `json:"network"`
	Writable   []string `json:"writable" jsonschema:"absolute paths commands may write"`
	DenyRead   []string `json:"denyRead" jsonschema:"absolute paths no command or file tool may read"`
	Protect    []string `json:"protect" jsonschema:"absolute read-only paths inside writable roots"`
	EnforcedBy []string `json:"enforcedBy" jsonschema:"the mechanisms, e.g. landlock:7, seccomp, mount-namespace"`
	Gaps       []string `json:"gaps,omitempty" jsonschema:"what this machine cannot enforce, in plain words"`
}

// SandboxDenial is one operation the sandbox denied a command.
type SandboxDenial struct {
	Op   string `json:"op" jsonschema:"write, read, connect, exec or syscall"`
	Path string `json:"path,omitempty"`
	Addr string `json:"addr,omitempty"`
	// Call names the refused call of a syscall denial (kill, bpf, mknod,
	// keyctl, ioctl TIOCSTI, SIGSYS).
	Call string `json:"call,omitempty"`
}

// SandboxReport is the sandbox member of a result whose command the sandbox
// stopped (SPEC §14).
type SandboxReport struct {
	Denied []SandboxDenial `json:"denied"`
	// Notice is SPEC §14's sentence for the model: what was denied, the
	// policy, and what the host could allow.
	Notice string `json:"notice"`
	// Changed names protected paths that changed during the command where
	// this machine could not stop it (a known gap, detected after the fact).
	Changed []string `json:"changed,omitempty"`
}
