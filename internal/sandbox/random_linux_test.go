//go:build linux

package sandbox

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolrpc/toolrpc/wire"
)

// randomTargets are the paths the random programs touch, relative to the
// workspace: inside it, through a symlink and ".." out of it, into the home
// directory and into the protected .git paths.
var randomTargets = []string{"a", "sub/b", "new", "sub", "out-link/x", "out-link", "../out/x", "../out/new", "../out",
	"../home/.bashrc", "../home/.ssh/id_rsa", "../home/.ssh", ".git/hooks/pre-commit", ".git/hooks", ".git/config", ".git",
	"hard"}

// randomOp returns one file operation of the grammar on random targets.
func randomOp(rng *rand.Rand) string {
	p := func() string { return randomTargets[rng.IntN(len(randomTargets))] }
	switch rng.IntN(11) {
	case 0:
		return "echo w > " + p()
	case 1:
		return "echo a >> " + p()
	case 2:
		return "truncate -s 0 " + p()
	case 3:
		return "rm -rf " + p()
	case 4:
		return "mv " + p() + " " + p()
	case 5:
		return "cp -r " + p() + " " + p()
	case 6:
		return "ln " + p() + " " + p()
	case 7:
		return "ln -sfn " + p() + " " + p()
	case 8:
		return "mkdir -p " + p()
	case 9:
		return "chmod 777 " + p()
	default:
		return "touch " + p()
	}
}

// makeRandomTree makes base/{ws,out,home} with a git workspace whose
// out-link points out of it.
func makeRandomTree(t *testing.T, base string) {
	t.Helper()
	for _, d := range []string{"ws/sub", "out", "home/.ssh"} {
		require.NoError(t, os.MkdirAll(filepath.Join(base, d), 0o755))
	}
	for f, c := range map[string]string{"ws/a": "a\n", "ws/sub/b": "b\n", "out/x": "x\n", "home/.bashrc": "rc\n", "home/.ssh/id_rsa": "key\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(base, f), []byte(c), 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Join(base, "out"), filepath.Join(base, "ws/out-link")))
	out, err := exec.Command("git", "init", "-q", filepath.Join(base, "ws")).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// outsideDigest hashes every byte, name, mode and link outside the writable
// set: out/, home/, and the workspace's protected .git paths.
func outsideDigest(t *testing.T, base string) string {
	t.Helper()
	h := sha256.New()
	for _, top := range []string{"out", "home", "ws/.git/hooks", "ws/.git/config"} {
		_ = filepath.WalkDir(filepath.Join(base, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				fmt.Fprintf(h, "%s: missing\n", p)
				return nil
			}
			fi, _ := os.Lstat(p)
			fmt.Fprintf(h, "%s %v\n", p, fi.Mode())
			if fi.Mode()&fs.ModeSymlink != 0 {
				l, _ := os.Readlink(p)
				fmt.Fprintf(h, "-> %s\n", l)
			} else if fi.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				h.Write(b)
			}
			return nil
		})
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestRandomProgramsStayInside checks SPEC §14 by random programs: each,
// from a small grammar of file operations, runs unsandboxed and sandboxed on
// fresh copies of one tree; the sandboxed run never changes a byte outside
// the writable set (and the unsandboxed runs show the programs would have).
func TestRandomProgramsStayInside(t *testing.T) {
	m := Probe()
	if m.LandlockABI == 0 {
		t.Skip("no Landlock")
	}
	rng := rand.New(rand.NewPCG(32, 14))
	escapes := 0
	const programs = 40
	for i := range programs {
		var ops []string
		for range 1 + rng.IntN(5) {
			ops = append(ops, randomOp(rng))
		}
		prog := strings.Join(ops, "; ")
		for _, sandboxed := range []bool{false, true} {
			base := outsideTmp(t)
			makeRandomTree(t, base)
			before := outsideDigest(t, base)
			r := Off
			if sandboxed {
				var err error
				r, err = Resolve(wire.SandboxPolicy{}, Env{Roots: []string{base + "/ws"}, Home: base + "/home", Machine: m,
					Getenv: func(string) string { return "" }})
				require.NoError(t, err)
			}
			_, out := runIn(t, r, base+"/ws", prog+"; echo inside > ws-mark")
			r.Close()
			require.FileExists(t, base+"/ws/ws-mark", "the workspace is not writable: %s", out)
			after := outsideDigest(t, base)
			if !sandboxed {
				if after != before {
					escapes++
				}
				continue
			}
			require.Equal(t, before, after, "program %d changed a byte outside the writable set: %s\n%s", i, prog, out)
		}
	}
	t.Logf("%d of %d programs change something outside when unsandboxed; none does sandboxed", escapes, programs)
	require.Positive(t, escapes, "the grammar never reaches outside: the test could not fail")
}
