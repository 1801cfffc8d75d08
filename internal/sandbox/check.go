package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toolrpc/toolrpc/wire"
)

// Denial is an operation the policy denies. Its Error is SPEC §14's notice,
// e.g. "[sandbox: write to /home/u/.bashrc denied — writable: the workspace,
// /tmp, caches. The host can add it with sandbox.writable.]".
type Denial struct {
	// Op is "write", "read", "connect" or "exec".
	Op string
	// Path is the denied path (read, write, exec), or "".
	Path string
	// Addr is the denied address (connect), or "".
	Addr string
	// Call is the refused call (syscall), or "".
	Call string

	why, fix string
}

// Error returns the notice.
func (d *Denial) Error() string {
	obj := d.Path
	switch d.Op {
	case "connect":
		obj = d.Addr
	case "syscall":
		obj = strings.TrimSpace(d.Call + " " + d.Path)
	}
	prep := " to "
	if d.Op == "read" || d.Op == "exec" {
		prep = " of "
	}
	if obj == "" {
		prep = ""
	} else if d.Op == "syscall" {
		prep = " "
	}
	return fmt.Sprintf("[sandbox: %s%s%s denied — %s. %s.]", d.Op, prep, obj, d.why, d.fix)
}

// Code is the SPEC §10 data.code of a file tool's denial.
func (d *Denial) Code() string { return wire.SandboxDenied }

// Wire returns d as a result's sandbox.denied entry.
func (d *Denial) Wire() wire.SandboxDenial {
	return wire.SandboxDenial{Op: d.Op, Path: d.Path, Addr: d.Addr, Call: d.Call}
}

// Enforced reports that the policy confines anything (its mode is not off).
func (r *Resolved) Enforced() bool { return r != nil && r.Mode != wire.SandboxOff }

// CheckRead returns nil when the policy lets a command read path (absolute,
// symlinks already resolved by the caller), else a *Denial.
func (r *Resolved) CheckRead(path string) error {
	if !r.Enforced() {
		return nil
	}
	path = filepath.Clean(path)
	if r.denied(path) {
		return &Denial{Op: "read", Path: path, why: "it is on the deny list (" + r.denyNames() + ")",
			fix: "Only the host can lift it, by turning the sandbox off (sandbox.mode: off)"}
	}
	return nil
}

// CheckWrite returns nil when the policy lets a command create, change,
// rename or remove path (absolute, symlinks already resolved by the caller),
// else a *Denial.
func (r *Resolved) CheckWrite(path string) error {
	if !r.Enforced() {
		return nil
	}
	path = filepath.Clean(path)
	if r.denied(path) {
		return &Denial{Op: "write", Path: path, why: "it is on the deny list (" + r.denyNames() + ")",
			fix: "Only the host can lift it, by turning the sandbox off (sandbox.mode: off)"}
	}
	if p, ok := r.protectedBy(path); ok {
		return &Denial{Op: "write", Path: path, why: "it is protected inside a writable root (" + p + ")",
			fix: "Only the host can lift it, by turning the sandbox off (sandbox.mode: off)"}
	}
	if !r.allowsWrite(path) {
		fix := "The host can add it with sandbox.writable"
		if r.Mode == wire.SandboxReadOnly {
			fix = "The host can allow writes with sandbox.mode: workspace-write"
		}
		return &Denial{Op: "write", Path: path, why: "writable: " + r.writableNames(), fix: fix}
	}
	return nil
}

// CheckConnect returns the denial of a network connection to addr ("host:port"),
// or nil when the network is on.
func (r *Resolved) CheckConnect(addr string) error {
	if !r.Enforced() || r.Network == wire.NetworkOn {
		return nil
	}
	return &Denial{Op: "connect", Addr: addr, why: "network: off (only Unix-domain sockets)",
		fix: "The host can allow it with sandbox.network: on"}
}

// allowsWrite reports that path is in or below the writable set.
func (r *Resolved) allowsWrite(path string) bool {
	for _, w := range r.Writable {
		if within(path, w) {
			return true
		}
	}
	return false
}

// protectedBy returns the protected path that covers path.
func (r *Resolved) protectedBy(path string) (string, bool) {
	for _, p := range r.Protect {
		if path == p.Path || (p.Tree && within(path, p.Path)) {
			return p.Path, true
		}
	}
	return "", false
}

// denied reports that path is, or is below, a denied path or matches a
// denied glob.
func (r *Resolved) denied(path string) bool {
	for _, d := range r.denyReadNow() {
		if within(path, d) {
			return true
		}
	}
	for _, g := range r.DenyGlobs {
		if globDenies(g, path) {
			return true
		}
	}
	return false
}

// globDenies reports that path is, or is below, a name glob's match: glob is
// "dir/pattern"; a pattern id_* never matches a *.pub.
func globDenies(glob, path string) bool {
	dir, pat := filepath.Dir(glob), filepath.Base(glob)
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	name, _, _ := strings.Cut(rel, string(filepath.Separator))
	return nameDenied(pat, name)
}

// nameDenied reports that name matches pat and is not a public key.
func nameDenied(pat, name string) bool {
	ok, _ := filepath.Match(pat, name)
	return ok && !strings.HasSuffix(name, ".pub")
}

// within reports that path is dir or below it.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return strings.HasPrefix(path, dir) && len(path) > len(dir) && path[len(dir)] == filepath.Separator
}

// writableNames is how a notice names the writable set: the roots by name,
// then /tmp, and "caches" for the rest.
func (r *Resolved) writableNames() string {
	names := append([]string{}, r.rootNames...)
	if r.Mode == wire.SandboxReadOnly {
		names = append(names, "the scratch dir")
	}
	names = append(names, "/tmp")
	if r.Mode == wire.SandboxWorkspaceWrite {
		names = append(names, "caches")
	}
	return strings.Join(names, ", ")
}

// denyNames is how a notice names the deny list.
func (r *Resolved) denyNames() string {
	return "private keys, cloud and registry credentials"
}

// State returns the policy as initialize states it.
func (r *Resolved) State() wire.SandboxState {
	s := wire.SandboxState{Mode: r.Mode, Requested: r.Requested, Reason: r.Reason, Network: r.Network,
		Writable: nonNil(r.Writable), DenyRead: nonNil(append(append([]string{}, r.DenyRead...), r.DenyGlobs...)),
		Protect: []string{}, EnforcedBy: r.EnforcedBy(), Gaps: r.Gaps()}
	for _, p := range r.Protect {
		s.Protect = append(s.Protect, p.Path)
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// UnavailableError refuses a call whose explicit mode this machine cannot
// enforce in full (SPEC §14's SANDBOX_UNAVAILABLE).
type UnavailableError struct {
	// Missing says what is missing and the option that turns it off.
	Missing string
}

// Error names what is missing.
func (e *UnavailableError) Error() string { return "sandbox unavailable: " + e.Missing }

// Code is the SPEC §10 data.code.
func (e *UnavailableError) Code() string { return wire.SandboxUnavailable }

// Usable returns nil when commands can run under the policy, else an
// *UnavailableError.
func (r *Resolved) Usable() error {
	if r != nil && r.Unavailable != "" {
		return &UnavailableError{Missing: r.Unavailable}
	}
	return nil
}
