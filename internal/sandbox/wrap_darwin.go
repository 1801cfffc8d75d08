//go:build darwin

package sandbox

import "os/exec"

// Wrap returns the procgroup.Spec.Wrap of the policy on macOS: the shell is
// started by sandbox-exec with the policy's Seatbelt profile (SBPL), made
// for each command so a .git made since is protected. It returns nil when
// the policy is off and fails when it is unavailable (Usable's error).
func (r *Resolved) Wrap() (func(cmd *exec.Cmd) error, error) {
	if err := r.Usable(); err != nil || !r.Enforced() {
		return nil, err
	}
	return func(cmd *exec.Cmd) error {
		cmd.Path, cmd.Args = sandboxExec, sandboxExecArgv(r.Now().SBPL(), cmd.Path, cmd.Args)
		return nil
	}, nil
}
