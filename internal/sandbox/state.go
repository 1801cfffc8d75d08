package sandbox

import (
	"strconv"

	"github.com/toolrpc/toolrpc/wire"
)

// EnforcedBy names the mechanisms that enforce the policy on this machine,
// e.g. ["landlock:7", "seccomp", "mount-namespace"]; none when it is off or
// unavailable.
func (r *Resolved) EnforcedBy() []string {
	if !r.Enforced() || r.Unavailable != "" {
		return []string{}
	}
	if r.Machine.OS == "darwin" {
		return []string{"sandbox-exec"}
	}
	out := []string{"landlock:" + strconv.Itoa(r.Machine.LandlockABI), "no_new_privs", "capabilities-dropped"}
	if r.Network == wire.NetworkOff {
		out = append(out, "seccomp")
	}
	if r.Machine.MountNS {
		ns := "mount-namespace"
		if r.Machine.UserNS {
			ns = "user-namespace+mount-namespace"
		}
		out = append(out, ns)
	}
	return out
}

// Gaps says, in plain words, what this machine leaves unenforced.
func (r *Resolved) Gaps() []string {
	if !r.Enforced() || r.Unavailable != "" {
		return nil
	}
	if r.Machine.OS == "darwin" {
		return r.darwinGaps()
	}
	var gaps []string
	if !r.Machine.MountNS && len(r.Protect) > 0 {
		gaps = append(gaps, "protected paths inside writable roots (.git, .git/hooks, .git/config) are not "+
			"stopped by the kernel here (no mount namespace: not root and no user namespaces); a change to "+
			"one is detected after the command and named in its result")
	}
	if !r.Machine.MountNS {
		gaps = append(gaps, "the mode, owner and times of a file outside the writable set can still be changed "+
			"(Landlock does not cover chmod, chown, utimes or xattrs; a read-only mount namespace would)")
	}
	if r.Machine.LandlockABI < 6 {
		gaps = append(gaps, "signals to processes outside the sandbox are not blocked (Landlock ABI "+
			strconv.Itoa(r.Machine.LandlockABI)+" < 6); ptrace and /proc/PID/environ are")
	}
	if r.Machine.LandlockABI < 4 && r.Network == wire.NetworkOff {
		gaps = append(gaps, "TCP is stopped by seccomp alone (Landlock ABI < 4)")
	}
	gaps = append(gaps, r.gitGaps()...)
	gaps = append(gaps, "the names inside a denied directory can be listed, its files cannot be read",
		"a protected path that does not exist when a command starts (a .git made by it) is not protected during that command")
	return gaps
}
