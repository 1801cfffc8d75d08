package sandbox

import (
	"slices"
)

// sandboxExec is macOS's Seatbelt launcher: sandbox-exec -p PROFILE CMD...
// applies the profile and execs CMD in its own place (same pid).
const sandboxExec = "/usr/bin/sandbox-exec"

// sandboxExecArgv is the argv that starts the program at path with argv
// (argv[0] its name) under profile: sandbox-exec applies the profile and
// execs path in its own place, keeping the pid.
func sandboxExecArgv(profile, path string, argv []string) []string {
	out := []string{sandboxExec, "-p", profile, path}
	if len(argv) > 1 {
		out = append(out, argv[1:]...)
	}
	return out
}

// windowsReason is why Windows has no sandbox (SPEC §14: auto is off there,
// an explicit mode is SANDBOX_UNAVAILABLE).
const windowsReason = "no sandbox is available on windows: it offers no unprivileged confinement that " +
	"a command and all its descendants inherit, as Landlock and sandbox-exec do (AppContainer and " +
	"restricted tokens are not implemented)"

// platformMissing says what m lacks on the platforms that enforce by other
// means than Landlock (macOS) or not at all (Windows); ok is false for the
// others, which missing judges.
func (m Machine) platformMissing() (why string, ok bool) {
	switch m.OS {
	case "darwin":
		if !m.SandboxExec {
			return sandboxExec + " is missing, which macOS has shipped since 10.5", true
		}
		return "", true
	case "windows":
		return windowsReason, true
	}
	return "", false
}

// darwinGaps are what a sandbox-exec profile leaves unenforced, in plain
// words (see docs/sandbox.md).
func (r *Resolved) darwinGaps() []string {
	return []string{
		"sandbox-exec is deprecated by Apple: it works on current macOS, but a later release may remove it",
		"the names inside a denied directory can be listed, its files cannot be read",
		"the Seatbelt profile is generated and unit-tested, but no Mac runs this build's tests in CI",
		"Mach services beyond a few (directory lookups, logging, trust, DNS with network on) are denied, " +
			"so a tool that needs the Keychain, launchd or a GUI service fails",
	}
}

// withGitDirs returns r with the .git directories its roots hold now
// protected too, so a repository made since the policy was resolved (git
// init) is protected from the next command on; where a mount namespace
// applies it, the placeholders of protected paths that do not exist yet are
// made first (resolveProtect).
func (r *Resolved) withGitDirs() *Resolved {
	c := *r
	c.Protect = slices.Clone(r.Protect)
	c.Writable = slices.Clone(r.Writable)
	c.resolveProtect(c.Machine.MountNS && c.Machine.OS == "linux")
	return &c
}
