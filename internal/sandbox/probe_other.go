//go:build !linux && !darwin

package sandbox

import "runtime"

// Probe returns what this machine enforces: nothing yet off Linux.
func Probe() Machine { return Machine{OS: runtime.GOOS} }
