//go:build !linux && !darwin

package sandbox

import "os/exec"

// Wrap returns nil off Linux, where no policy is enforced (an enforced one
// is unavailable: Usable's error).
func (r *Resolved) Wrap() (func(cmd *exec.Cmd) error, error) {
	return nil, r.Usable()
}
