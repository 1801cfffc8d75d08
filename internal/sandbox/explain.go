package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/wire"
)

// deniedWords are the kernel's refusals as commands print them (strerror of
// EACCES, EPERM, EROFS, EBUSY on a mount point, EXDEV of a link Landlock
// refused) and the resolver's failures with network off.
var deniedWords = []string{"Permission denied", "Operation not permitted", "Read-only file system",
	"Device or resource busy", "Invalid cross-device link", "PermissionError", "EACCES", "EPERM", "EROFS"}

// netWords are what a command prints when its socket, connect or name
// lookup failed.
var netWords = []string{"Could not resolve host", "Temporary failure in name resolution", "Name or service not known",
	"Address family not supported", "Failed to connect", "Couldn't connect", "connect:", "socket:",
	"getaddrinfo", "Network is unreachable", "connect to", "Operation not permitted", "Permission denied", "EAI_AGAIN"}

// quoted finds '...', "...", ‘...’ and `...' spans; fields split the rest.
var (
	quoted = regexp.MustCompile("'([^']+)'|\"([^\"]+)\"|‘([^’]+)’|`([^']+)'")
	hostRe = regexp.MustCompile(`(?:host:?\s+|to\s+|connect to\s+|https?://)([A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9]|\[[0-9a-fA-F:]+\])(?:(?::|\s+port\s+)(\d+))?`)
	addrRe = regexp.MustCompile(`\b(\d{1,3}(?:\.\d{1,3}){3})(?:(?::|\s+port\s+)(\d+))?\b`)
)

// Explain returns what the policy denied a command whose output (stderr and
// stdout) is given, learnt from the kernel's refusals it printed: each path
// a refusal names is checked against the policy (a refusal the policy does
// not explain, such as a file's own mode, is not named), and with network
// off a failed socket, connect or lookup is a connect denial. dir resolves
// relative paths. It returns nil when nothing was denied.
func (r *Resolved) Explain(output, dir string) *wire.SandboxReport {
	if !r.Enforced() || output == "" {
		return nil
	}
	var rep wire.SandboxReport
	var notices []string
	seen := map[wire.SandboxDenial]bool{}
	add := func(err error) {
		d, ok := err.(*Denial)
		if !ok || seen[d.Wire()] || len(rep.Denied) >= limits.SandboxMaxDenials {
			return
		}
		seen[d.Wire()] = true
		rep.Denied = append(rep.Denied, d.Wire())
		notices = append(notices, d.Error())
	}
	for _, line := range strings.Split(output, "\n") {
		if d := r.explainCall(line, dir); d != nil {
			add(d)
			continue
		}
		if !containsAny(line, deniedWords) && !(r.Network == wire.NetworkOff && containsAny(line, netWords)) {
			continue
		}
		named := false
		for _, c := range pathCandidates(line) {
			if err := r.explainPath(line, c, dir); err != nil {
				add(err)
				named = true
			}
		}
		if !named && r.Network == wire.NetworkOff && containsAny(line, netWords) {
			add(r.CheckConnect(addrIn(line)))
		}
	}
	if len(rep.Denied) == 0 {
		return nil
	}
	rep.Notice = notices[0]
	if len(notices) > 1 {
		rep.Notice += fmt.Sprintf(" (%d more denials in sandbox.denied)", len(notices)-1)
	}
	return &rep
}

// explainPath returns the denial of candidate c that a refusal in line
// names, or nil when the policy allows what line could have done to it.
func (r *Resolved) explainPath(line, c, dir string) error {
	p := c
	if procPID.MatchString(filepath.Clean(p)) {
		return explainProc(line, filepath.Clean(p))
	}
	if !filepath.IsAbs(p) {
		if strings.HasPrefix(p, "~/") {
			return nil
		}
		p = filepath.Join(dir, p)
		if !looksLikePath(c) && !shellOrWriteLine(line) {
			if _, err := os.Lstat(p); err != nil {
				return nil // a bare word that names no file
			}
		}
	}
	p = canonicalParent(p)
	if err := r.CheckRead(p); err != nil {
		if writeLine(strings.ReplaceAll(line, c, "")) {
			return r.CheckWrite(p)
		}
		return err
	}
	if !shellOrWriteLine(strings.ReplaceAll(line, c, "")) && !strings.Contains(line, "Read-only file system") {
		return nil // a read the policy allows: not the sandbox's refusal (a file's own mode)
	}
	if err := r.CheckWrite(p); err != nil {
		return err
	}
	return nil
}

// writeLine reports that a refusal reads as a write (create, remove, move,
// link) rather than a read.
func writeLine(line string) bool {
	return containsAny(strings.ToLower(line), []string{"create", "remove", "move", "touch", "write", "mkdir",
		"rename", "link", "delete", "read-only", "busy", "lock", "cannot open '", "redirect", "unlink"})
}

// shellOrWriteLine reports that line is the shell's refusal of a
// redirection ("bash: out.txt: Read-only file system") or reads as a write:
// a bare name on it is a path even when no such file exists.
func shellOrWriteLine(line string) bool {
	return strings.HasPrefix(line, "bash: ") || strings.HasPrefix(line, "sh: ") ||
		strings.Contains(line, "bash: line ") || writeLine(line)
}

// pathCandidates returns the quoted spans and colon-separated fields of
// line that look like paths.
func pathCandidates(line string) []string {
	var out []string
	for _, m := range quoted.FindAllStringSubmatch(line, -1) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	rest := quoted.ReplaceAllString(line, ":")
	fields := strings.Split(rest, ":")
	if len(fields) > 2 {
		fields = fields[1:] // the first names the program ("/usr/bin/bash: line 1: ...")
	}
	for _, f := range fields {
		f = strings.TrimSpace(f)
		if looksLikePath(f) {
			out = append(out, f)
		} else if f != "" && !strings.ContainsAny(f, " \t") {
			out = append(out, f) // a bare name; explainPath keeps it only if it exists
		}
		// "cannot create /x/y" and "open /x/y" carry the path after a verb.
		if i := strings.LastIndexByte(f, ' '); i >= 0 && looksLikePath(f[i+1:]) {
			out = append(out, f[i+1:])
		}
	}
	return out
}

// looksLikePath reports that s could be a path a command printed.
func looksLikePath(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t[]()=") || len(s) > 4096 {
		return false
	}
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, ".") || strings.Contains(s, "/")
}

// canonicalParent resolves the symlinks of p's parent (p itself may be a
// link the command meant to follow, or not exist).
func canonicalParent(p string) string {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if t, err := os.Readlink(p); err == nil {
			if !filepath.IsAbs(t) {
				t = filepath.Join(filepath.Dir(p), t)
			}
			return canonical(t)
		}
	}
	return canonical(p)
}

// addrIn returns the host[:port] a network failure line names, or "".
func addrIn(line string) string {
	if m := addrRe.FindStringSubmatch(line); m != nil {
		return joinAddr(m[1], m[2])
	}
	if m := hostRe.FindStringSubmatch(line); m != nil {
		return joinAddr(m[1], m[2])
	}
	return ""
}

func joinAddr(host, port string) string {
	if port == "" {
		return host
	}
	return host + ":" + port
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Report is the sandbox member of a command's result: Explain's denials of
// its output, and the protected paths Watch saw change (a known gap of a
// machine without a mount namespace, named after the fact). It returns nil
// when there is nothing to say.
func (r *Resolved) Report(output, dir string, changed []string) *wire.SandboxReport {
	rep := r.Explain(output, dir)
	if len(changed) == 0 {
		return rep
	}
	if rep == nil {
		rep = &wire.SandboxReport{Denied: []wire.SandboxDenial{}}
	}
	rep.Changed = changed
	note := "[sandbox: protected paths changed during the command: " + strings.Join(changed, ", ") +
		" — this machine cannot stop that (initialize's sandbox.gaps); check them before running git.]"
	if rep.Notice == "" {
		rep.Notice = note
	} else {
		rep.Notice += " " + note
	}
	return rep
}
