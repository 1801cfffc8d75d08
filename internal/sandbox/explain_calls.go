package sandbox

import (
	"path/filepath"
	"regexp"
	"strings"
)

// refusedCalls are the calls the sandbox refuses outright (seccomp, no
// capabilities, Landlock's scopes), each with the pattern of a command's
// message that names it. Checked in order; the first match names the line.
var refusedCalls = []struct {
	call string
	re   *regexp.Regexp
}{
	{"ioctl TIOCSTI", regexp.MustCompile(`\bTIOCSTI\b`)},
	{"ioctl TIOCLINUX", regexp.MustCompile(`\bTIOCLINUX\b`)},
	{"SIGSYS", regexp.MustCompile(`Bad system call`)},
	{"keyctl", regexp.MustCompile(`\b(keyctl|add_key|request_key)\b`)},
	{"bpf", regexp.MustCompile(`\bbpf\b`)},
	{"mknod", regexp.MustCompile(`\bmknod\b`)},
	{"kill", regexp.MustCompile(`\bkill\b`)},
	{"ptrace", regexp.MustCompile(`\bptrace\b`)},
	{"mount", regexp.MustCompile(`\b(mount|umount|unshare)\b`)},
}

// explainCall returns the denial of a refused call that line names, or
// nil. A chmod refused on a file the policy lets the command write is the
// set-id filter's.
func (r *Resolved) explainCall(line, dir string) *Denial {
	if !strings.Contains(line, "Bad system call") && !strings.Contains(line, "Operation not permitted") &&
		!strings.Contains(line, "EPERM") && !strings.Contains(line, "Permission denied") {
		return nil
	}
	d := &Denial{Op: "syscall", why: "the sandbox refuses it to every command",
		fix: "Only the host can lift it, by turning the sandbox off (sandbox.mode: off)"}
	for _, c := range refusedCalls {
		if c.re.MatchString(line) {
			d.Call = c.call
			break
		}
	}
	if d.Call == "" && strings.HasPrefix(line, "chmod: ") {
		for _, c := range pathCandidates(line) {
			if p := absIn(c, dir); p != "" && r.CheckWrite(canonicalParent(p)) == nil {
				d.Call, d.Path = "chmod", p
				d.why = "the sandbox refuses the set-user-id and set-group-id bits"
				return d
			}
		}
	}
	if d.Call == "" {
		return nil
	}
	if d.Call == "mknod" {
		for _, c := range pathCandidates(line) {
			if looksLikePath(c) {
				d.Path = absIn(c, dir)
				break
			}
		}
	}
	return d
}

// absIn returns c absolute (relative to dir), cleaned, never resolved.
func absIn(c, dir string) string {
	if strings.HasPrefix(c, "~") {
		return ""
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(dir, c)
	}
	return filepath.Clean(c)
}

// procPID matches a path in another process's, or the command's own,
// /proc directory: the server must not resolve it in its own /proc.
var procPID = regexp.MustCompile(`^/proc/(\d+|self|thread-self)(/|$)`)

// explainProc returns the denial of a /proc/PID path a refusal names: a
// process's entries outside the sandbox are refused by Landlock's ptrace
// rule, whatever the policy's paths say.
func explainProc(line, p string) *Denial {
	op := "read"
	if writeLine(strings.ReplaceAll(line, p, "")) {
		op = "write"
	}
	return &Denial{Op: op, Path: p, why: "it belongs to a process outside the sandbox",
		fix: "Only the host can lift it, by turning the sandbox off (sandbox.mode: off)"}
}
