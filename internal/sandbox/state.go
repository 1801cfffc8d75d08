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
	if r.Network == wire.NetworkOff || r.Machine.Seccomp {
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
	if !r.Machine.MountNS {
		gaps = append(gaps, "without a mount namespace: /dev is the host's (block devices are visible, not "+
			"readable but as root), /dev/pts shows the host's ptys, the host's daemon sockets (tmux, ssh-agent, "+
			"dbus, docker) are reachable (SSH_AUTH_SOCK and TMUX are still dropped), and a new file beside a "+
			"denied path in a writable directory cannot be written")
	} else {
		gaps = append(gaps, "a command run on a pty (tools/process mode pty) sees the host's /dev/pts, "+
			"so that its own terminal keeps its name; commands without a pty get a devpts of their own")
	}
	if !r.Machine.Seccomp {
		gaps = append(gaps, "no seccomp: TIOCSTI into a command's own pty, the kernel keyring and set-id "+
			"modes are not refused")
	}
	gaps = append(gaps, "other processes' command lines and status are readable in /proc (no PID "+
		"namespace); their environment, memory and file descriptors are not")
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
