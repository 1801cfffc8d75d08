package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolrpc/toolrpc/internal/sandbox/confine"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/wire"
)

// Env is where a session lives, as Resolve needs it.
type Env struct {
	// Roots are the workspace roots, absolute; the first is "the workspace".
	Roots []string
	// ReadOnlyRoots are roots the file tools reach that commands must not
	// write (the host's external roots), absolute; one inside the writable
	// set (under /tmp) is made read-only again.
	ReadOnlyRoots []string
	// Scratch is the session's scratch directory, absolute ("" = none).
	Scratch string
	// Home is the user's home directory ("" = none).
	Home string
	// Getenv reads the server's environment ($TMPDIR, $GOCACHE, ...); nil
	// means os.Getenv.
	Getenv func(string) string
	// Machine is what this machine can enforce; the zero value enforces
	// nothing. Probe returns this machine's.
	Machine Machine
}

// Machine is what the kernel and platform can enforce.
type Machine struct {
	// OS is runtime.GOOS.
	OS string
	// LandlockABI is the Landlock ABI version, 0 without Landlock.
	LandlockABI int
	// Seccomp reports that a seccomp filter can be installed.
	Seccomp bool
	// MountNS reports that a wrapper can make a mount namespace of its own
	// (as root, or through a user namespace) to bind protected paths
	// read-only.
	MountNS bool
	// UserNS reports that the mount namespace needs a user namespace (the
	// server is not root).
	UserNS bool
	// SandboxExec reports that macOS's /usr/bin/sandbox-exec is there.
	SandboxExec bool `json:",omitempty"`
}

// Protected is one protected path inside a writable root: the wrapper's
// type, so a Resolved's list is what the wrapper is given.
type Protected = confine.Protected

// Resolved is a policy resolved to absolute paths. The zero value is mode
// off. Its methods may be called concurrently; it is never changed once
// Resolve returns it (a new policy is a new Resolved).
type Resolved struct {
	// Mode is the effective mode: wire.SandboxOff, SandboxReadOnly or
	// SandboxWorkspaceWrite.
	Mode string `json:"mode"`
	// Requested is the mode the host asked for (auto when it named none).
	Requested string `json:"requested"`
	// Reason says why auto resolved to off ("" otherwise).
	Reason string `json:"reason,omitempty"`
	// Network is wire.NetworkOn or NetworkOff.
	Network string `json:"network"`
	// Writable are the paths a command may write, cleaned, absolute,
	// symlinks resolved where they exist.
	Writable []string `json:"writable"`
	// Roots are the writable roots among Writable (protected paths live
	// inside them).
	Roots []string `json:"roots"`
	// Protect are the protected paths inside writable roots.
	Protect []Protected `json:"protect"`
	// DenyRead are the denied paths: files or whole trees.
	DenyRead []string `json:"denyRead"`
	// DenyGlobs are denied names in a directory, matched at each check and
	// at each command's setup: "dir/id_*" denies dir's id_* but not *.pub.
	DenyGlobs []string `json:"denyGlobs"`
	// Unavailable, when set, says what this machine lacks to enforce the
	// explicit mode in full; every call is then refused SANDBOX_UNAVAILABLE.
	Unavailable string `json:"unavailable,omitempty"`
	// Machine is what enforces it.
	Machine Machine `json:"machine"`

	rootNames   []string     // how the notice names each of Roots, same order
	hostProtect []string     // the host's protect paths, resolved
	carved      []string     // read-only roots inside the writable set (read-only mode)
	fork        *forker      // the confined thread that forks commands (Fork), where there is one
	targets     *denyTargets // the symlinked deny entries' targets, resolved lately (denyReadNow)
	ids         *deniedIDs   // the denied files' identities seen so far (Now)
}

// Off is the policy of a session whose sandbox is off.
var Off = &Resolved{Mode: wire.SandboxOff, Requested: wire.SandboxOff, Network: wire.NetworkOn}

// Resolve turns the host's policy into absolute paths for env. It reads a
// few directories (~/.ssh, each root's .git) and never walks the workspace.
// A bad mode or network value is an error; an explicit mode this machine
// cannot enforce is not: the Resolved says so in Unavailable.
func Resolve(p wire.SandboxPolicy, env Env) (*Resolved, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	r := &Resolved{Requested: p.Mode, Network: p.Network, Machine: env.Machine, fork: newForker(), targets: &denyTargets{}, ids: &deniedIDs{}}
	if r.Requested == "" {
		r.Requested = wire.SandboxAuto
	}
	if r.Network == "" {
		r.Network = wire.NetworkOn
	}
	switch r.Requested {
	case wire.SandboxAuto, wire.SandboxOff, wire.SandboxReadOnly, wire.SandboxWorkspaceWrite:
	default:
		return nil, fmt.Errorf("sandbox.mode %q: want auto, off, read-only or workspace-write", p.Mode)
	}
	if r.Network != wire.NetworkOn && r.Network != wire.NetworkOff {
		return nil, fmt.Errorf("sandbox.network %q: want on or off", p.Network)
	}
	r.Mode = r.Requested
	if r.Mode == wire.SandboxAuto {
		r.Mode = wire.SandboxWorkspaceWrite
		if why := env.Machine.missing(wire.NetworkOn); why != "" {
			r.Mode, r.Reason = wire.SandboxOff, why
		} else if why := env.Machine.missing(r.Network); why != "" {
			r.Unavailable = why + "; the host can turn it off with sandbox.network: on"
		}
	} else if r.Mode != wire.SandboxOff {
		if why := env.Machine.missing(r.Network); why != "" {
			r.Unavailable = why + "; the host can turn it off with sandbox.mode: off"
		}
	}
	if r.Mode == wire.SandboxOff {
		r.Network = wire.NetworkOn
		return r, nil
	}
	exp := expander{home: env.Home, getenv: getenv}
	r.resolveWritable(p, env, exp)
	r.resolveDeny(p, exp)
	r.resolveHostProtect(p, env.Roots, env.ReadOnlyRoots)
	r.resolveProtect(false)
	return r, nil
}

// missing says what m lacks to enforce a sandbox with the given network
// setting, or "".
func (m Machine) missing(network string) string {
	if why, ok := m.platformMissing(); ok {
		return why
	}
	switch {
	case m.OS != "linux":
		return fmt.Sprintf("no sandbox is available on %s", orUnknown(m.OS))
	case m.LandlockABI < 1:
		return "the kernel has no Landlock (Linux 5.13+ with landlock in the lsm= list)"
	case network == wire.NetworkOff && !m.Seccomp:
		return "network off needs seccomp, which this kernel does not offer"
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "this platform"
	}
	return s
}

// resolveWritable fills Writable and Roots.
func (r *Resolved) resolveWritable(p wire.SandboxPolicy, env Env, exp expander) {
	add := func(path string) {
		if path = canonical(path); path != "" && !slices.Contains(r.Writable, path) {
			r.Writable = append(r.Writable, path)
		}
	}
	if r.Mode == wire.SandboxWorkspaceWrite {
		for i, root := range env.Roots {
			c := canonical(root)
			if c == "" || slices.Contains(r.Roots, c) {
				continue
			}
			r.Roots = append(r.Roots, c)
			name := "the workspace"
			if i > 0 {
				name = c
			}
			r.rootNames = append(r.rootNames, name)
			add(c)
		}
	}
	add(env.Scratch)
	add("/tmp")
	if r.Mode == wire.SandboxWorkspaceWrite {
		add(exp.expand("$TMPDIR"))
	}
	for _, d := range limits.SandboxDevWritable() {
		if r.Mode == wire.SandboxWorkspaceWrite || d == "/dev/null" {
			add(d)
		}
	}
	if r.Mode != wire.SandboxWorkspaceWrite {
		return
	}
	for _, c := range limits.SandboxCaches() {
		add(exp.expand(c))
	}
	for _, w := range p.Writable {
		add(exp.expand(w))
	}
}

// resolveDeny fills DenyRead and DenyGlobs.
func (r *Resolved) resolveDeny(p wire.SandboxPolicy, exp expander) {
	for _, d := range append(limits.SandboxDenyRead(), p.DenyRead...) {
		path := exp.expand(d)
		if path == "" {
			continue
		}
		if strings.ContainsAny(filepath.Base(path), "*?[") {
			dir := canonical(filepath.Dir(path))
			if dir != "" {
				r.DenyGlobs = appendNew(r.DenyGlobs, filepath.Join(dir, filepath.Base(path)))
			}
			continue
		}
		// Both the name as given and where it leads are denied.
		r.DenyRead = appendNew(r.DenyRead, filepath.Clean(path))
		r.DenyRead = appendNew(r.DenyRead, canonical(path))
	}
}

// resolveProtect fills Protect from each root's git directories
// (protectGit), the host's protect paths (a ".git" one as a root's), and, in read-only mode, the roots
// that lie in the writable set (a workspace under /tmp), each whole; then
// pins every directory on the way from a root to a protected path. With mk
// (the policy is applied in a mount namespace) it makes the placeholders of
// protected paths that do not exist yet.
func (r *Resolved) resolveProtect(mk bool) {
	for _, root := range r.Roots {
		r.protectGit(root, mk)
	}
	for _, c := range r.hostProtect {
		if filepath.Base(c) == ".git" {
			// A nested repository the host names: protected as a root's.
			r.protectGit(filepath.Dir(c), mk)
			continue
		}
		if _, err := os.Lstat(c); err != nil {
			r.protectMissing(c, mk)
			continue
		}
		r.protect(c, true)
	}
	for _, c := range r.carved {
		r.protect(c, true)
	}
	r.pinAncestors()
}

// resolveHostProtect fills hostProtect from p.Protect (relative to the
// first root), and carved: the read-only roots (and in read-only mode the
// roots) that the writable set holds (/tmp holds a workspace under it),
// which stay read-only.
func (r *Resolved) resolveHostProtect(p wire.SandboxPolicy, roots, readOnly []string) {
	for _, path := range p.Protect {
		if !filepath.IsAbs(path) && len(r.Roots) > 0 {
			path = filepath.Join(r.Roots[0], path)
		}
		r.hostProtect = appendNew(r.hostProtect, canonical(path))
	}
	if r.Mode != wire.SandboxReadOnly {
		roots = nil
	}
	for _, root := range append(roots, readOnly...) {
		if c := canonical(root); c != "" && r.allowsWrite(c) {
			r.carved = appendNew(r.carved, c)
		}
	}
}

func appendNew(s []string, v string) []string {
	if v == "" || slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// canonical returns path absolute and cleaned, with symlinks resolved as far
// as it exists ("" for "").
func canonical(path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	// Resolve the longest existing parent, keep the rest as named.
	dir, rest := filepath.Dir(abs), filepath.Base(abs)
	for dir != filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		dir, rest = filepath.Dir(dir), filepath.Join(filepath.Base(dir), rest)
	}
	return abs
}

// expander expands "~/" and "$NAME" at the start of a path.
type expander struct {
	home   string
	getenv func(string) string
}

func (e expander) expand(p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if e.home == "" {
			return ""
		}
		return filepath.Join(e.home, strings.TrimPrefix(p, "~"))
	case strings.HasPrefix(p, "$"):
		name, rest, _ := strings.Cut(p[1:], "/")
		v := e.getenv(name)
		if v == "" || !filepath.IsAbs(v) {
			return ""
		}
		return filepath.Join(v, rest)
	}
	return p
}

// HostEnv returns the Env of this process for the given roots and scratch,
// with Machine from Probe.
func HostEnv(roots []string, scratch string) Env {
	home, _ := os.UserHomeDir()
	if home != "" && Probe().LandlockABI > 0 {
		makeCaches(home)
	}
	return Env{Roots: roots, Scratch: scratch, Home: home, Machine: Probe()}
}

// cacheTools maps each cache directory in the home directory to the tool
// that uses it ("" for any).
var cacheTools = map[string]string{".cache": "", ".npm": "npm", "go/pkg/mod": "go", ".cargo/registry": "cargo",
	".cargo/git": "cargo", ".m2": "mvn", ".gradle": "gradle", ".local/share/pnpm": "pnpm"}

// makeCaches makes the missing caches of the tools on PATH: a sandboxed
// command cannot make them itself (home is not writable), so the first
// build would fail.
func makeCaches(home string) {
	for dir, tool := range cacheTools {
		if tool != "" {
			if _, err := exec.LookPath(tool); err != nil {
				continue
			}
		}
		_ = os.MkdirAll(filepath.Join(home, dir), 0o755)
	}
}
