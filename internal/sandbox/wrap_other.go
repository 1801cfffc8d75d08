//go:build !linux && !darwin

package sandbox

import "syscall"

// Wrap returns nil off Linux, where no policy is enforced (an enforced one
// is unavailable: Usable's error).
func (r *Resolved) Wrap() (func(path string, argv []string, attr *syscall.SysProcAttr) (string, []string), error) {
	return nil, r.Usable()
}
