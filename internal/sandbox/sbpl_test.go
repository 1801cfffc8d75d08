package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolrpc/toolrpc/wire"
)

var updateSBPL = flag.Bool("update-sbpl", false, "rewrite testdata/*.sb from SBPL")

// darwinPolicy is a resolved workspace-write policy as a Mac would have it,
// built by hand so the profile's text does not depend on this machine.
func darwinPolicy(network string) *Resolved {
	return &Resolved{Mode: wire.SandboxWorkspaceWrite, Requested: wire.SandboxAuto, Network: network,
		Machine:  Machine{OS: "darwin", SandboxExec: true},
		Writable: []string{"/Users/u/src/app", "/private/var/folders/x/scratch", "/private/tmp", "/dev/null", "/dev/tty", "/Users/u/.cache", "/Users/u/odd \"dir\\"},
		Roots:    []string{"/Users/u/src/app"},
		Protect: []Protected{{Path: "/Users/u/src/app/.git"}, {Path: "/Users/u/src/app/.git/hooks", Tree: true},
			{Path: "/Users/u/src/app/.git/config", Tree: true}},
		DenyRead:  []string{"/Users/u/.gnupg", "/Users/u/.aws", "/Users/u/.netrc"},
		DenyGlobs: []string{"/Users/u/.ssh/id_*", "/Users/u/k.d/key[0-9]?"},
	}
}

// TestSBPLGolden checks SPEC §14 on macOS: the profile sandbox-exec runs is
// exactly the reviewed text in testdata (regenerate with -update-sbpl and
// review the diff).
func TestSBPLGolden(t *testing.T) {
	for _, net := range []string{wire.NetworkOn, wire.NetworkOff} {
		got := darwinPolicy(net).SBPL()
		path := filepath.Join("testdata", "workspace-write-network-"+net+".sb")
		if *updateSBPL {
			require.NoError(t, os.MkdirAll("testdata", 0o755))
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, string(want), got, "%s is stale: run go test ./internal/sandbox -run TestSBPLGolden -update-sbpl", path)
	}
}

// TestSBPLStructure checks SPEC §14 on macOS by the profile's structure: it
// parses as balanced S-expressions with well-formed strings; it denies by
// default; every writable path is written under an allow and every
// protected and denied path under a deny that comes after it (later rules
// win); *.pub keys stay readable; network off allows Unix-domain sockets
// only, network on all; signals and process inspection stay in the sandbox.
func TestSBPLStructure(t *testing.T) {
	for _, net := range []string{wire.NetworkOn, wire.NetworkOff} {
		r := darwinPolicy(net)
		p := r.SBPL()
		forms := parseSBPL(t, p)
		require.Equal(t, "(version 1)", forms[0])
		require.Equal(t, "(deny default)", forms[1])
		require.NotContains(t, p, "(allow default)")
		allowWrite := indexOf(forms, "(allow file-write*\n  (require-all")
		denyWrite := indexOf(forms, "(deny file-write*")
		denyAll := indexOf(forms, "(deny file-read* file-write*")
		require.True(t, allowWrite >= 0 && allowWrite < denyWrite && denyWrite < denyAll, "allow, protect, deny in that order")
		for _, w := range r.Writable {
			require.Contains(t, forms[allowWrite], sbplString(w), w)
		}
		for _, pr := range r.Protect {
			require.Contains(t, forms[denyWrite], sbplString(pr.Path))
			kind := "literal"
			if pr.Tree {
				kind = "subpath"
			}
			require.Contains(t, forms[allowWrite], "(require-not ("+kind+" "+sbplString(pr.Path)+"))")
		}
		require.Contains(t, forms[denyWrite], `(literal "/Users/u/src/app/.git")`, ".git itself, not its tree")
		for _, d := range r.DenyRead {
			require.Contains(t, forms[denyAll], "(subpath "+sbplString(d)+")")
		}
		require.Contains(t, p, `(allow signal (target same-sandbox))`)
		require.Contains(t, p, `(allow process-info* (target same-sandbox))`)
		require.NotContains(t, p, "file-mount")
		if net == wire.NetworkOff {
			require.NotContains(t, p, "(allow network*")
			require.Contains(t, p, "(allow network-outbound (remote unix-socket))")
			require.Contains(t, p, `mDNSResponder`)
			require.NotContains(t, p, "com.apple.dnssd.service")
		} else {
			require.Contains(t, p, "(allow network*")
		}
	}
}

// TestSBPLDenyRegex checks SPEC §14's key rule in the profile's regexes:
// id_* and what is below it is denied, *.pub and other names are not.
func TestSBPLDenyRegex(t *testing.T) {
	r := darwinPolicy(wire.NetworkOn)
	deny := r.sbplDenyFilters()
	var re, pub *regexp.Regexp
	for _, f := range deny {
		if strings.Contains(f, `\.ssh`) {
			m := regexp.MustCompile(`#"([^"]*)"`).FindAllStringSubmatch(f, -1)
			require.Len(t, m, 2)
			re, pub = regexp.MustCompile(m[0][1]), regexp.MustCompile(m[1][1])
		}
	}
	require.NotNil(t, re)
	denied := func(p string) bool { return re.MatchString(p) && !pub.MatchString(p) }
	for _, p := range []string{"/Users/u/.ssh/id_rsa", "/Users/u/.ssh/id_ed25519", "/Users/u/.ssh/id_x/y"} {
		require.True(t, denied(p), p)
		require.Error(t, r.CheckRead(p), "the predicate agrees: %s", p)
	}
	for _, p := range []string{"/Users/u/.ssh/id_rsa.pub", "/Users/u/.ssh/known_hosts", "/Users/u/.ssh/config", "/Users/u/.sshx/id_rsa", "/Users/u/.ssh"} {
		require.False(t, denied(p), p)
		require.NoError(t, r.CheckRead(p), "the predicate agrees: %s", p)
	}
	require.Equal(t, `key[0-9][^/]`, globRegex("key[0-9]?"))
	require.Equal(t, `a\.b[^/]*`, globRegex("a.b*"))
	require.Equal(t, `"a\\b\"c"`, sbplString(`a\b"c`))
}

func indexOf(forms []string, prefix string) int {
	for i, f := range forms {
		if strings.HasPrefix(f, prefix) {
			return i
		}
	}
	return -1
}

// parseSBPL splits a profile into its top-level forms, failing on an
// unbalanced parenthesis or an unterminated string; comments are dropped.
func parseSBPL(t *testing.T, p string) []string {
	t.Helper()
	var forms []string
	depth, start := 0, -1
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == ';' && depth == 0:
			for i < len(p) && p[i] != '\n' {
				i++
			}
		case c == '#' && i+1 < len(p) && p[i+1] == '"':
			j := strings.IndexByte(p[i+2:], '"')
			require.GreaterOrEqual(t, j, 0, "unterminated regex at %d", i)
			i += 2 + j
		case c == '"':
			i++
			for ; i < len(p) && p[i] != '"'; i++ {
				if p[i] == '\\' {
					i++
				}
			}
			require.Less(t, i, len(p), "unterminated string")
		case c == '(':
			if depth == 0 {
				start = i
			}
			depth++
		case c == ')':
			depth--
			require.GreaterOrEqual(t, depth, 0, "unbalanced ) at %d", i)
			if depth == 0 {
				forms = append(forms, p[start:i+1])
			}
		case depth == 0 && c != ' ' && c != '\n':
			t.Fatalf("text outside a form at %d: %q", i, p[i:min(len(p), i+20)])
		}
	}
	require.Zero(t, depth, "unbalanced (")
	return forms
}

// TestPlatforms checks SPEC §14 off Linux: on macOS auto is workspace-write
// enforced by sandbox-exec, and without sandbox-exec an explicit mode is
// unavailable; on Windows auto is off with the reason stated and an explicit
// mode is SANDBOX_UNAVAILABLE naming the option that turns it off.
func TestPlatforms(t *testing.T) {
	env := testEnv(t)
	env.Machine = Machine{OS: "darwin", SandboxExec: true}
	r, err := Resolve(wire.SandboxPolicy{Network: wire.NetworkOff}, env)
	require.NoError(t, err)
	require.Equal(t, wire.SandboxWorkspaceWrite, r.Mode)
	require.NoError(t, r.Usable())
	require.Equal(t, []string{"sandbox-exec"}, r.State().EnforcedBy)
	require.Contains(t, strings.Join(r.Gaps(), "\n"), "deprecated")
	require.Contains(t, r.SBPL(), "(deny default)")

	env.Machine = Machine{OS: "darwin"}
	r, err = Resolve(wire.SandboxPolicy{Mode: wire.SandboxReadOnly}, env)
	require.NoError(t, err)
	require.Contains(t, r.Unavailable, "sandbox-exec is missing")

	env.Machine = Machine{OS: "windows"}
	r, err = Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	require.Equal(t, wire.SandboxOff, r.Mode)
	require.Equal(t, windowsReason, r.Reason)
	require.NoError(t, r.Usable())
	require.Empty(t, r.State().EnforcedBy)

	r, err = Resolve(wire.SandboxPolicy{Mode: wire.SandboxWorkspaceWrite}, env)
	require.NoError(t, err)
	var u *UnavailableError
	require.ErrorAs(t, r.Usable(), &u)
	require.Equal(t, wire.SandboxUnavailable, u.Code())
	require.Contains(t, u.Error(), "AppContainer")
	require.Contains(t, u.Error(), "sandbox.mode: off")
}

// TestWithGitDirs checks SPEC §14: a .git made after the policy was
// resolved is protected in the next command's profile.
func TestWithGitDirs(t *testing.T) {
	env := testEnv(t)
	env.Machine = Machine{OS: "darwin", SandboxExec: true}
	ws := filepath.Join(filepath.Dir(env.Home), "fresh")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	env.Roots = []string{ws}
	r, err := Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	require.NotContains(t, r.SBPL(), ws+"/.git/hooks")
	require.NoError(t, os.MkdirAll(ws+"/.git/hooks", 0o755))
	p := r.withGitDirs().SBPL()
	require.Contains(t, p, `(subpath "`+ws+`/.git/hooks")`)
	require.Contains(t, p, `(literal "`+ws+`/.git")`)
	require.NotContains(t, r.SBPL(), ws+"/.git/hooks", "r itself is unchanged")
}

// TestSandboxExecArgv checks SPEC §14 on macOS: the shell is started by
// sandbox-exec with the profile, then the shell's own path and arguments.
func TestSandboxExecArgv(t *testing.T) {
	got := sandboxExecArgv("(version 1)", "/bin/bash", []string{"bash", "-c", "echo hi"})
	require.Equal(t, []string{"/usr/bin/sandbox-exec", "-p", "(version 1)", "/bin/bash", "-c", "echo hi"}, got)
	require.Equal(t, []string{"/usr/bin/sandbox-exec", "-p", "p", "/bin/sh"}, sandboxExecArgv("p", "/bin/sh", []string{"sh"}))
}
