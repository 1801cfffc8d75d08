package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolrpc/toolrpc/wire"
)

// TestListFilter checks SPEC §14: a walk's filter drops exactly what
// CheckRead denies below its start (private keys but not *.pub, denied
// trees and files), and is nil where nothing below the start is denied.
func TestListFilter(t *testing.T) {
	env := testEnv(t)
	home := env.Home
	env.Roots = []string{home}
	r, err := Resolve(wire.SandboxPolicy{DenyRead: []string{"~/proj/secrets", "~/proj/.env"}}, env)
	require.NoError(t, err)

	rels := []string{".ssh/id_ed25519", ".ssh/id_ed25519.pub", ".ssh/known_hosts", ".ssh/config", ".ssh/id_rsa",
		".ssh/id_dir/x", ".gnupg/pubring.kbx", ".gnupg", ".aws/credentials", ".awsome/x", ".netrc", ".netrc2",
		".docker/config.json", ".docker/other", "proj/secrets", "proj/secrets/a/b", "proj/secretsX", "proj/.env",
		"proj/.env.example", "proj/main.go", ".config/gh/hosts.yml", ".config/gh/config.yml", "id_rsa"}
	for _, start := range []string{home, filepath.Join(home, "proj"), filepath.Join(home, ".ssh")} {
		f := r.ListFilter(start)
		require.NotNil(t, f, start)
		for _, rel := range rels {
			abs := filepath.Join(home, rel)
			sub, ok := below(abs, start)
			if !ok {
				continue
			}
			want := r.CheckRead(abs) == nil
			require.Equal(t, want, f.Keep(sub, filepath.Base(sub)), "Keep %s below %s", sub, start)
			require.Equal(t, want, f.Dir(sub), "Dir %s below %s", sub, start)
		}
	}
	require.False(t, r.ListFilter(home).Keep(".ssh/id_ed25519", "id_ed25519"))
	require.True(t, r.ListFilter(home).Keep(".ssh/id_ed25519.pub", "id_ed25519.pub"))

	require.Nil(t, r.ListFilter(filepath.Join(home, "src")), "nothing denied below it")
	require.Nil(t, r.ListFilter(filepath.Join(home, ".gnupg")), "denied itself: CheckRead's")
	require.Nil(t, Off.ListFilter(home))
}

// TestListFilterCostsNothing checks SPEC §14's cost rule for the file tools:
// where nothing below a walk's start is denied, making its filter allocates
// nothing and the walk gets none; where something is, asking about a file
// allocates nothing.
func TestListFilterCostsNothing(t *testing.T) {
	env := testEnv(t)
	r, err := Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	start := env.Roots[0]
	require.Nil(t, r.ListFilter(start))
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = r.ListFilter(start) }))
	f := r.ListFilter(env.Home)
	require.NotNil(t, f)
	require.Zero(t, testing.AllocsPerRun(100, func() {
		_ = f.Keep(".ssh/id_ed25519.pub", "id_ed25519.pub") && f.Dir("src/pkg/deep/dir")
	}), "a kept file costs the walk no allocation")
}

// FuzzListFilter checks SPEC §14's rule that grep and glob drop exactly what
// tools/read refuses: for any walk path (slash-separated, no empty, "." or
// ".." part), Keep agrees with CheckRead.
func FuzzListFilter(f *testing.F) {
	for _, s := range []string{".ssh/id_rsa", ".ssh/id_rsa.pub", ".ssh/id_x/y", ".aws", ".awsx/c", "proj/secrets/a", "proj/.env.local", "a/b"} {
		f.Add(s)
	}
	base := f.TempDir()
	home := filepath.Join(base, "home")
	r, err := Resolve(wire.SandboxPolicy{DenyRead: []string{"~/proj/secrets", "~/proj/.env", "~/k/key[0-9]?"}},
		Env{Roots: []string{home}, Home: home, Machine: linux7, Getenv: func(string) string { return "" }})
	require.NoError(f, err)
	fl := r.ListFilter(home)
	f.Fuzz(func(t *testing.T, rel string) {
		for _, part := range strings.Split(rel, "/") {
			if part == "" || part == "." || part == ".." || strings.ContainsRune(part, 0) {
				return
			}
		}
		want := r.CheckRead(filepath.Join(home, filepath.FromSlash(rel))) == nil
		require.Equal(t, want, fl.Keep(rel, filepath.Base(rel)), rel)
		require.Equal(t, want, fl.Dir(rel), rel)
	})
}
