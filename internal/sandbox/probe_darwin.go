//go:build darwin

package sandbox

import (
	"os"
	"sync"
)

// Probe returns what this machine enforces: a Seatbelt profile run by
// sandbox-exec, where it is installed.
var Probe = sync.OnceValue(func() Machine {
	_, err := os.Stat(sandboxExec)
	return Machine{OS: "darwin", SandboxExec: err == nil}
})
