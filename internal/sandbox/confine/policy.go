// Package confine applies the sandbox's policy (SPEC §14) to a thread: to a
// thread of the server that forks commands (Policy.Thread), or as the
// wrapper: a binary that links it, started as [exe, Arg, policy...,
// command...], confines itself by the policy and then execs the command in
// its place, with the same pid. The sandbox package resolves the policy,
// confines its threads and starts the wrapper (Policy.Args); this package
// only applies it.
//
// The wrapper runs from this package's init, on every sandboxed command's
// path, so it runs before the binary's other packages initialise: Go
// initialises a package as soon as its imports are, so this package imports
// nothing that package os does not already need, but syscall and unsafe
// (TestImportsStaySmall), and reads its policy from argv, one path per
// argument, rather than from JSON: encoding/json, fmt, strings or even
// golang.org/x/sys/unix would make its init wait for dozens of other
// packages' inits. The policy names paths as Linux does: absolute,
// slash-separated, cleaned.
package confine

import "errors"

// Arg, as the first argument, makes a binary that links this package the
// wrapper.
const Arg = "__toolrpc-sandbox"

// ProbeArg, as the only argument, makes a binary that links this package
// exit 0 at once: the sandbox's probe starts it in a new mount namespace to
// learn whether the machine allows one.
const ProbeArg = "__toolrpc-sandbox-probe"

// FailCode is the exit code of a wrapper that could not confine the
// command: it never runs the command unconfined.
const FailCode = 125

// FailPrefix starts the one line a failed wrapper writes to stderr.
const FailPrefix = "toolrpc sandbox: "

// Protected is one protected path inside a writable root.
type Protected struct {
	// Path is absolute.
	Path string `json:"path"`
	// Tree protects everything below Path too (bound read-only); without it
	// only the entry itself is protected (bound onto itself, so it cannot be
	// removed, renamed or replaced) and what is below stays writable (the
	// .git directory: objects, refs, index).
	Tree bool `json:"tree"`
}

// AppendProtected adds p to s, or widens the entry for its path.
func AppendProtected(s []Protected, p Protected) []Protected {
	for i := range s {
		if s[i].Path == p.Path {
			s[i].Tree = s[i].Tree || p.Tree
			return s
		}
	}
	return append(s, p)
}

// Policy is what the wrapper applies, resolved by the sandbox package.
type Policy struct {
	// LandlockABI is the kernel's Landlock ABI version (≥ 1).
	LandlockABI int
	// MountNS: the wrapper was started in a mount namespace of its own and
	// makes the mounts outside Writable read-only and binds Protect.
	MountNS bool
	// NetworkOff installs the seccomp filter that allows only Unix sockets,
	// and denies TCP through Landlock.
	NetworkOff bool
	// Seccomp installs the filter every command runs under (TIOCSTI, the
	// keyring, set-id modes, io_uring); NetworkOff implies it.
	Seccomp bool
	// ServerMountNS names the server's mount namespace
	// (/proc/self/ns/mnt's link), which the wrapper must not be in when it
	// mounts.
	ServerMountNS string
	// Writable are the paths a command may write.
	Writable []string
	// Roots are the writable roots among Writable; each one's .git is
	// looked up again by the wrapper and protected.
	Roots []string
	// Protect are the protected paths inside writable roots.
	Protect []Protected
	// DenyRead are denied paths: files or whole trees.
	DenyRead []string
	// DenyGlobs are denied names in a directory: "dir/id_*" denies dir's
	// id_* but not its *.pub.
	DenyGlobs []string
	// EnvFD, when above 2, is the wrapper's descriptor holding the
	// command's environment (NUL-separated): the wrapper itself starts
	// with none, so nothing in it (LD_PRELOAD, ...) acts before the
	// confinement; the exec of the command applies it.
	EnvFD int
}

// version starts the header argument, so a wrapper never reads a policy
// written for another layout.
const version = "confine/1"

// Args returns the wrapper's arguments after the binary's path: Arg, the
// policy, then command (the program's path and its arguments). The policy is
// a header ("confine/1 landlock=7 mountns=1 network=off writable=N ..."),
// the server's mount namespace, and then each list, one entry per argument
// (a protected path is prefixed "t" when Tree, else "e"), so no path is
// ever escaped or parsed.
func (p *Policy) Args(command []string) []string {
	b := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	head := version +
		" landlock=" + itoa(p.LandlockABI) +
		" mountns=" + b(p.MountNS) +
		" networkoff=" + b(p.NetworkOff) +
		" seccomp=" + b(p.Seccomp) +
		" writable=" + itoa(len(p.Writable)) +
		" roots=" + itoa(len(p.Roots)) +
		" protect=" + itoa(len(p.Protect)) +
		" denyread=" + itoa(len(p.DenyRead)) +
		" denyglobs=" + itoa(len(p.DenyGlobs)) +
		" envfd=" + itoa(p.EnvFD)
	out := make([]string, 0, 3+len(p.Writable)+len(p.Roots)+len(p.Protect)+len(p.DenyRead)+len(p.DenyGlobs)+len(command))
	out = append(out, Arg, head, p.ServerMountNS)
	out = append(out, p.Writable...)
	out = append(out, p.Roots...)
	for _, pr := range p.Protect {
		kind := "e"
		if pr.Tree {
			kind = "t"
		}
		out = append(out, kind+pr.Path)
	}
	out = append(out, p.DenyRead...)
	out = append(out, p.DenyGlobs...)
	return append(out, command...)
}

// errPolicy is the error of arguments that are not a policy Args wrote.
var errPolicy = errors.New("the wrapper's arguments are not a policy of " + version)

// Parse reads what Args wrote after Arg: the policy, and the command that
// follows it.
func Parse(args []string) (Policy, []string, error) {
	var p Policy
	if len(args) < 2 {
		return p, nil, errPolicy
	}
	fields := split(args[0], ' ')
	if fields[0] != version {
		return p, nil, errPolicy
	}
	counts := map[string]int{}
	for _, f := range fields[1:] {
		kv := split(f, '=')
		n, ok := atoi(kv[len(kv)-1])
		if len(kv) != 2 || !ok {
			return p, nil, errPolicy
		}
		counts[kv[0]] = n
	}
	p.LandlockABI = counts["landlock"]
	p.MountNS = counts["mountns"] == 1
	p.NetworkOff = counts["networkoff"] == 1
	p.Seccomp = counts["seccomp"] == 1
	p.EnvFD = counts["envfd"]
	p.ServerMountNS = args[1]
	rest := args[2:]
	take := func(key string) ([]string, bool) {
		n := counts[key]
		if n > len(rest) {
			return nil, false
		}
		if n == 0 {
			return nil, true
		}
		s := rest[:n:n]
		rest = rest[n:]
		return s, true
	}
	var ok [5]bool
	var protect []string
	p.Writable, ok[0] = take("writable")
	p.Roots, ok[1] = take("roots")
	protect, ok[2] = take("protect")
	p.DenyRead, ok[3] = take("denyread")
	p.DenyGlobs, ok[4] = take("denyglobs")
	if ok != [5]bool{true, true, true, true, true} {
		return Policy{}, nil, errPolicy
	}
	for _, e := range protect {
		if len(e) < 2 || e[0] != 't' && e[0] != 'e' {
			return Policy{}, nil, errPolicy
		}
		p.Protect = append(p.Protect, Protected{Path: e[1:], Tree: e[0] == 't'})
	}
	return p, rest, nil
}

// The wrapper's own small string helpers: strings and strconv would wait for
// other packages' inits (see the package doc).

// split splits s at each sep.
func split(s string, sep byte) []string {
	var out []string
	for {
		i := indexByte(s, sep)
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
}

// indexByte is the index of the first c in s, or -1.
func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// itoa formats n ≥ 0 in decimal.
func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}

// atoi parses a decimal n ≥ 0 of at most 9 digits.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// hasPrefix reports that s begins with prefix.
func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

// cutPrefix returns s without prefix, and whether s began with it.
func cutPrefix(s, prefix string) (string, bool) {
	if !hasPrefix(s, prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// trimSpace drops the ASCII white space around s.
func trimSpace(s string) string {
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' }
	for len(s) > 0 && space(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && space(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}
