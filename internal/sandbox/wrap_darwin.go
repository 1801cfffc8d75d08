//go:build darwin

package sandbox

import "syscall"

// Wrap returns the procgroup.Spec.Wrap of the policy on macOS: the shell is
// started by sandbox-exec with the policy's Seatbelt profile (SBPL), made
// for each command so a .git made since is protected. It returns nil when
// the policy is off and fails when it is unavailable (Usable's error).
func (r *Resolved) Wrap() (func(path string, argv []string, attr *syscall.SysProcAttr) (string, []string), error) {
	if err := r.Usable(); err != nil || !r.Enforced() {
		return nil, err
	}
	return func(path string, argv []string, _ *syscall.SysProcAttr) (string, []string) {
		return sandboxExec, sandboxExecArgv(r.withGitDirs().SBPL(), path, argv)
	}, nil
}
