package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/toolrpc/toolrpc/wire"
)

// SBPL returns the macOS Seatbelt profile (Sandbox Profile Language, run by
// sandbox-exec -p) that enforces r: everything denied but what a shell and
// its tools need; files readable but the deny list; writable only in the
// writable set, without the protected paths; network on, or off but for
// Unix-domain sockets (and not the DNS daemon's); signals and process
// inspection only inside the sandbox. It is a pure function of r, so its
// text is tested on every OS. Rules later in the profile win over earlier
// ones, and the allows exclude what the denies name too, so the profile
// holds whichever order the kernel applies.
func (r *Resolved) SBPL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "(version 1)\n; toolrpc sandbox (SPEC §14): mode %s, network %s\n(deny default)\n", r.Mode, r.Network)
	b.WriteString(sbplBase)

	deny := r.sbplDenyFilters()
	b.WriteString("\n; reads: everything but the deny list\n")
	b.WriteString(sbplRule("allow", "file-read*", nil, deny))

	b.WriteString("\n; writes: the writable set, but the protected paths and the deny list\n")
	var write []string
	for _, w := range r.Writable {
		if strings.HasPrefix(w, "/dev/") {
			write = append(write, "(literal "+sbplString(w)+")")
		} else {
			write = append(write, "(subpath "+sbplString(w)+")")
		}
	}
	prot := r.sbplProtectFilters()
	b.WriteString(sbplRule("allow", "file-write*", write, append(append([]string{}, prot...), deny...)))
	b.WriteString(sbplRule("deny", "file-write*", prot, nil))
	b.WriteString(sbplRule("deny", "file-read* file-write*", deny, nil))

	b.WriteString("\n; network\n")
	if r.Network == wire.NetworkOff {
		b.WriteString(sbplNetworkOff)
	} else {
		b.WriteString(sbplNetworkOn)
	}
	return b.String()
}

// sbplBase is what every sandboxed shell needs, and no more: processes it
// starts inherit the profile; signals, process inspection and task ports
// only inside it; no mount (never allowed).
const sbplBase = `(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow ipc-posix-sem ipc-posix-shm)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.logd")
  (global-name "com.apple.PowerManagement.control")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.trustd.agent"))
(allow pseudo-tty)
(allow file-ioctl (literal "/dev/ptmx") (literal "/dev/tty") (regex #"^/dev/ttys[0-9]+$"))
(allow file-write* (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$"))
`

// sbplNetworkOff allows Unix-domain sockets only, and not the resolver's, so
// connect, bind and DNS fail at once.
const sbplNetworkOff = `(allow network-outbound (remote unix-socket))
(allow network-bind network-inbound (local unix-socket))
(deny network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))
`

// sbplNetworkOn allows every socket and the resolver.
const sbplNetworkOn = `(allow network* system-socket)
(allow mach-lookup
  (global-name "com.apple.dnssd.service")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.SystemConfiguration.DNSConfiguration"))
`

// sbplRule writes one rule of op over the filters match (nil: every path),
// without the filters except, or "" when match is empty but not nil.
func sbplRule(action, op string, match, except []string) string {
	if match != nil && len(match) == 0 {
		return ""
	}
	if len(except) == 0 {
		if match == nil {
			return "(" + action + " " + op + ")\n"
		}
		return "(" + action + " " + op + "\n  " + sbplAny(match, "  ") + ")\n"
	}
	var b strings.Builder
	b.WriteString("(" + action + " " + op + "\n  (require-all")
	if match != nil {
		b.WriteString("\n    " + sbplAny(match, "    "))
	}
	for _, e := range except {
		b.WriteString("\n    (require-not " + e + ")")
	}
	return b.String() + "))\n"
}

// sbplAny is one filter, or require-any of several, one a line below indent.
func sbplAny(filters []string, indent string) string {
	if len(filters) == 1 {
		return filters[0]
	}
	return "(require-any\n" + indent + "  " + strings.Join(filters, "\n"+indent+"  ") + ")"
}

// sbplDenyFilters are the deny list's filters: each denied path and what is
// below it, and each denied name glob (never a *.pub).
func (r *Resolved) sbplDenyFilters() []string {
	out := []string{}
	for _, d := range r.DenyRead {
		out = append(out, "(subpath "+sbplString(d)+")")
	}
	for _, g := range r.DenyGlobs {
		dir := sbplRegexQuote(filepath.Dir(g))
		out = append(out, "(require-all (regex #\"^"+dir+"/"+globRegex(filepath.Base(g))+"(/|$)\") "+
			"(require-not (regex #\"^"+dir+"/[^/]*\\.pub(/|$)\")))")
	}
	return out
}

// sbplProtectFilters are the protected paths' filters: a tree and what is
// below it, or the entry alone (the .git directory: it cannot be removed,
// renamed or replaced, while what is below it stays writable).
func (r *Resolved) sbplProtectFilters() []string {
	out := []string{}
	for _, p := range r.Protect {
		if p.Tree {
			out = append(out, "(subpath "+sbplString(p.Path)+")")
		} else {
			out = append(out, "(literal "+sbplString(p.Path)+")")
		}
	}
	return out
}

// sbplString quotes s as an SBPL (Scheme) string.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// sbplRegexQuote quotes s for an SBPL #"..." regex. A double quote, which
// such a literal cannot hold, becomes "." (it denies no less).
func sbplRegexQuote(s string) string {
	return strings.ReplaceAll(regexp.QuoteMeta(s), `"`, ".")
}

// globRegex turns a name glob (*, ?, [...]) into a regex of one path
// component.
func globRegex(pat string) string {
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*':
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			j := strings.IndexByte(pat[i:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := pat[i+1 : i+j]
			if strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `"`, ".") + "]")
			i += j
		default:
			b.WriteString(sbplRegexQuote(string(c)))
		}
	}
	return b.String()
}
