package confine

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestArgsRoundTrip checks that Parse reads back what Args wrote, command
// included, for paths with spaces, '=', newlines and a leading 't' or 'e'.
func TestArgsRoundTrip(t *testing.T) {
	p := Policy{
		LandlockABI: 7, MountNS: true, NetworkOff: true, ServerMountNS: "mnt:[4026531832]",
		Writable:  []string{"/w s", "/tmp", "/a=b"},
		Roots:     []string{"/w s"},
		Protect:   []Protected{{Path: "/w s/.git"}, {Path: "/w s/.git/hooks", Tree: true}, {Path: "/t\nx", Tree: true}},
		DenyRead:  []string{"/home/u/.aws", "/e"},
		DenyGlobs: []string{"/home/u/.ssh/id_*"},
	}
	cmd := []string{"/bin/sh", "-c", "echo confine/1 landlock=9"}
	args := p.Args(cmd)
	require.Equal(t, Arg, args[0])
	got, rest, err := Parse(args[1:])
	require.NoError(t, err)
	require.Equal(t, p, got)
	require.Equal(t, cmd, rest)
}

// TestParseRefuses checks that arguments Args did not write are refused,
// never read as a smaller policy.
func TestParseRefuses(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"confine/1"},
		{"confine/2 landlock=7", "ns"},
		{"confine/1 landlock=x", "ns"},
		{"confine/1 writable=3", "ns", "/a"},
		{"confine/1 protect=1", "ns", "/no-kind"},
		{"confine/1 landlock=-1", "ns"},
		{"confine/1 landlock", "ns"},
	} {
		_, _, err := Parse(args)
		require.Error(t, err, "%q", args)
	}
}

// FuzzArgs checks the round trip for any lists and command.
func FuzzArgs(f *testing.F) {
	f.Add("/a\x00/b", "/r", "t/x\x00e/y", "/d", "/g/id_*", "/bin/sh\x00-c\x00true", 7, true)
	f.Fuzz(func(t *testing.T, writable, roots, protect, deny, globs, command string, abi int, flag bool) {
		list := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, "\x00")
		}
		p := Policy{LandlockABI: abi & 0xffff, MountNS: flag, NetworkOff: !flag, ServerMountNS: "ns",
			Writable: list(writable), Roots: list(roots), DenyRead: list(deny), DenyGlobs: list(globs)}
		for _, e := range list(protect) {
			p.Protect = append(p.Protect, Protected{Path: "/" + e, Tree: len(e)%2 == 0})
		}
		cmd := list(command)
		got, rest, err := Parse(p.Args(cmd)[1:])
		require.NoError(t, err)
		require.Equal(t, p, got)
		require.Equal(t, len(cmd), len(rest))
		require.True(t, slices.Equal(cmd, rest))
	})
}

// TestImportsStaySmall checks what makes the wrapper start fast: the package
// depends on nothing that package os does not already pull in, but syscall
// and unsafe, so its init runs before nearly every other package's (see the
// package doc). An import of strings, strconv, fmt or golang.org/x/sys/unix
// fails it.
func TestImportsStaySmall(t *testing.T) {
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		require.NoError(t, err, "go list -deps %s", pkg)
		return strings.Fields(string(out))
	}
	allowed := append(deps("os"), "syscall", "unsafe", "github.com/toolrpc/toolrpc/internal/sandbox/confine")
	for _, d := range deps("github.com/toolrpc/toolrpc/internal/sandbox/confine") {
		require.Contains(t, allowed, d, "package confine depends on %s, which os does not", d)
	}
}
