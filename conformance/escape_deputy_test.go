package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The attacks on toolrpc's own server (SPEC §14, issue 46 rows 1–6 and 11):
// a command prepares the ground, and the server — unconfined, and root
// when it runs as root — is the one that would do the write or the read.
// They race or drive the server itself, so they are Go tests rather than
// testdata/attacks files (Peers: no).

// outsideFiles lists what dir holds, for an attack's check.
func outsideFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestEscape_SpillDirSymlink checks SPEC §14 and §6.3 (issue 46 row 1): a
// command that swaps the scratch dir's tool-output for a symlink, or its
// process dir for one (or fills it with symlinks named as the next process
// logs), never makes the server write outside the scratch dir: the next
// spill and the next process log still land in the scratch dir, and the
// files outside and the user's .bashrc are untouched.
func TestEscape_SpillDirSymlink(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		scratch := b.s.ScratchDir
		big := "seq 1 60000"
		type spilled struct {
			Info struct {
				Spill string `json:"spill"`
			} `json:"stdoutInfo"`
		}
		first := decode[spilled](t, b.s.call(t, "tools/bash", map[string]any{"command": big}))
		require.NotEmpty(t, first.Info.Spill, "the first big output is spilled")
		before := outsideFiles(t, b.outside)
		r := b.bash(t, `set -e; cd "`+scratch+`"; rm -rf tool-output process
ln -s "`+b.outside+`" tool-output; ln -s "`+b.outside+`" process; ls -l`)
		require.Equal(t, 0, *r.ExitCode, "the command may write its scratch dir: %s", r.Stderr)

		next := decode[spilled](t, b.s.call(t, "tools/bash", map[string]any{"command": big}))
		_ = decode[map[string]any](t, b.s.call(t, "tools/process/start", map[string]any{"command": "echo started"}))
		require.Equal(t, before, outsideFiles(t, b.outside), "the server wrote into the directory a command's symlink named")
		if next.Info.Spill != "" {
			require.True(t, strings.HasPrefix(next.Info.Spill, scratch+"/"), "spill %s", next.Info.Spill)
			fi, err := os.Lstat(filepath.Dir(next.Info.Spill))
			require.NoError(t, err)
			require.True(t, fi.IsDir(), "the spill went through a symlink: %s", next.Info.Spill)
		}

		// The process dir a real directory, each next log's name a symlink to .bashrc.
		r = b.bash(t, `set -e; cd "`+scratch+`"; rm -rf process; mkdir process
for i in $(seq 1 9); do ln -s "$HOME/.bashrc" process/p$i.log; ln -s "$HOME/.bashrc" process/p$i.log.tmp; done`)
		require.Equal(t, 0, *r.ExitCode, "%s", r.Stderr)
		_ = decode[map[string]any](t, b.s.call(t, "tools/process/start", map[string]any{"command": "echo started"}))
		rc, err := os.ReadFile(filepath.Join(b.home, ".bashrc"))
		require.NoError(t, err)
		require.Equal(t, "# rc\n", string(rc), "a process log was written through a symlink to .bashrc")
	})
}

// raceRounds bounds the file-tool races: the issue saw the read race win
// within 2–77 calls and the write race within 20–220.
const raceRounds = 300

// swapLoop starts, as a sandboxed process of b's session, a loop that
// exchanges the workspace entries a (a directory) and link (a symlink to
// outside) with renameat2(RENAME_EXCHANGE), as fast as it can, and returns
// the function that stops it.
func swapLoop(t *testing.T, b *sandboxBox, a, link string) func() {
	t.Helper()
	// perl is in every Debian (perl-base); renameat2 is 316 on x86_64, 276 on arm64.
	cmd := `exec perl -e '$n = ($ARGV[0] eq "aarch64") ? 276 : 316; print "swapping\n"; $| = 1; while (1) { syscall($n, -100, $ARGV[1], -100, $ARGV[2], 2) }' "$(uname -m)" ` +
		a + " " + link
	var started struct {
		ID string `json:"id"`
	}
	started = decode[struct {
		ID string `json:"id"`
	}](t, b.s.call(t, "tools/process/start", map[string]any{"command": cmd, "wait": map[string]any{"until": []string{"pattern"}, "pattern": "swapping", "timeoutMs": 10000}}))
	return func() {
		_, _ = b.s.request(t, "tools/process/signal", map[string]any{"id": started.ID, "signal": "KILL"})
	}
}

// TestEscape_ReadSymlinkRace checks SPEC §14 (issue 46 row 3): while a
// command swaps a workspace directory with a symlink to ~/.aws, tools/read
// of a file below it, and tools/grep of the directory, never return the
// denied credentials: they open the path they checked, through no symlink.
func TestEscape_ReadSymlinkRace(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		r := b.bash(t, `mkdir dreal && echo benign > dreal/credentials && ln -s "$HOME/.aws" dlink`)
		require.Equal(t, 0, *r.ExitCode, "%s", r.Stderr)
		stop := swapLoop(t, b, "dreal", "dlink")
		defer stop()
		served := 0
		for i := range raceRounds {
			method, params := "tools/read", map[string]any{"path": "dreal/credentials"}
			if i%2 == 1 {
				method, params = "tools/grep", map[string]any{"pattern": "secret|benign", "path": "dreal", "outputMode": "content"}
			}
			res, e := b.s.request(t, method, params)
			if e != nil {
				continue
			}
			require.NotContains(t, string(res), "aws secret", "%s served ~/.aws/credentials through the swapped symlink", method)
			served++
		}
		t.Logf("%d of %d reads and greps answered, the rest refused", served, raceRounds)
	})
}

// TestEscape_WriteSymlinkRace checks SPEC §14 (issue 46 row 2): while a
// command swaps a workspace directory with a symlink to the home
// directory, tools/write of .bashrc below it never writes ~/.bashrc: the
// write goes through the directory it checked, held open.
func TestEscape_WriteSymlinkRace(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		r := b.bash(t, `mkdir wdir && ln -s "$HOME" wlink`)
		require.Equal(t, 0, *r.ExitCode, "%s", r.Stderr)
		stop := swapLoop(t, b, "wdir", "wlink")
		defer stop()
		for i := range raceRounds {
			_, _ = b.s.request(t, "tools/write", map[string]any{"path": "wdir/.bashrc", "content": "echo PWNED\n"})
			if i%20 == 0 {
				rc, err := os.ReadFile(filepath.Join(b.home, ".bashrc"))
				require.NoError(t, err)
				require.Equal(t, "# rc\n", string(rc), "tools/write wrote ~/.bashrc through the swapped symlink (call %d)", i+1)
			}
		}
		rc, err := os.ReadFile(filepath.Join(b.home, ".bashrc"))
		require.NoError(t, err)
		require.Equal(t, "# rc\n", string(rc), "tools/write wrote ~/.bashrc through the swapped symlink")
	})
}

// TestEscape_GitInitThenWriteConfig checks SPEC §14 (issue 46 row 5): in a
// workspace that was no repository at initialize, a command's git init
// makes a .git whose config and hooks the file tools then refuse to write
// (the protected set is resolved per call), while a command still cannot
// write them either from the next command on.
func TestEscape_GitInitThenWriteConfig(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBoxGit(t, asRoot, nil, false)
		r := b.bash(t, "git init -q . && test -f .git/config && echo made")
		require.Equal(t, "made\n", r.Stdout, "%s", r.Stderr)
		for _, p := range []string{".git/config", ".git/hooks/pre-commit"} {
			_, e := b.s.request(t, "tools/write", map[string]any{"path": p, "content": "[core]\n\tfsmonitor = touch " + b.outside + "/pwned\n"})
			require.NotNil(t, e, "tools/write %s after a command's git init was allowed", p)
			require.Equal(t, "SANDBOX_DENIED", e.Kind, "%s: %v", p, e)
		}
		cfg, err := os.ReadFile(filepath.Join(b.ws, ".git/config"))
		require.NoError(t, err)
		require.NotContains(t, string(cfg), "fsmonitor")
		_, e := b.s.request(t, "tools/write", map[string]any{"path": "src/new.go", "content": "package src\n"})
		require.Nil(t, e, "a plain file beside the new repository stays writable")
	})
}

// TestEscape_SSHKeySymlinkFileTools checks SPEC §14 (issue 46 row 11) for
// the file tools: a ~/.ssh/id_* symlink into the workspace made after
// initialize denies its target to tools/read and hides it from tools/grep.
func TestEscape_SSHKeySymlinkFileTools(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		out, err := b.hostScript(t, `mkdir -p keys && echo "REAL PRIVATE KEY" > keys/real && ln -s "$WS/keys/real" "$HOME/.ssh/id_work"`, "")
		require.NoError(t, err, "%s", out)
		_, e := b.s.request(t, "tools/read", map[string]any{"path": "keys/real"})
		require.NotNil(t, e, "tools/read served the target of a symlinked ~/.ssh/id_*")
		require.Equal(t, "SANDBOX_DENIED", e.Kind)
		res := b.s.call(t, "tools/grep", map[string]any{"pattern": "PRIVATE KEY", "outputMode": "content"})
		require.NotContains(t, string(res), "REAL PRIVATE KEY")
	})
}

// evilSO is a preload library whose constructor writes $PWN_DIR/pwned-PID
// and appends a line to $WS/loaded: outside the sandbox the first write
// succeeds, inside only the second.
const evilSO = `#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void pwn(void) {
	char p[4096];
	const char *d = getenv("PWN_DIR"), *w = getenv("WS");
	if (d) { snprintf(p, sizeof p, "%s/pwned-%d", d, (int)getpid()); int fd = open(p, O_CREAT|O_WRONLY, 0644); if (fd >= 0) close(fd); }
	if (w) { snprintf(p, sizeof p, "%s/loaded", w); int fd = open(p, O_CREAT|O_WRONLY|O_APPEND, 0644); if (fd >= 0) { write(fd, "x\n", 2); close(fd); } }
}
`

// TestEscape_LDPreloadWrapper checks SPEC §14 (issue 46 row 6): a call's
// env with LD_PRELOAD never runs the library outside the sandbox — the
// wrapper a server that is not root starts each command through is
// started with an empty environment — while the command itself still gets
// the environment the call asked for.
func TestEscape_LDPreloadWrapper(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed (.ci/install installs it)")
	}
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		src := filepath.Join(t.TempDir(), "evil.c")
		require.NoError(t, os.WriteFile(src, []byte(evilSO), 0o644))
		so := filepath.Join(b.ws, "evil.so")
		out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", so, src).CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.NoError(t, os.Chmod(so, 0o755))
		r := decode[sandboxBash](t, b.s.call(t, "tools/bash", map[string]any{"command": "echo ran",
			"env": map[string]any{"LD_PRELOAD": so, "PWN_DIR": b.outside, "WS": b.ws}}))
		require.Equal(t, "ran\n", r.Stdout, "%s", r.Stderr)
		for _, name := range outsideFiles(t, b.outside) {
			require.False(t, strings.HasPrefix(name, "pwned"), "the preloaded library ran outside the sandbox (%s)", name)
		}
		_, err = os.Stat(filepath.Join(b.ws, "loaded"))
		require.NoError(t, err, "the command itself did not get the call's LD_PRELOAD")
	})
}

// TestEscape_DeniedRenamedOrLinked checks SPEC §14 (issue 46 row 4) for
// the file tools: a denied file that a command renamed, or hard-linked,
// inside a writable root is still refused by tools/read and hidden from
// tools/grep — they judge the file they opened, not the name asked for.
func TestEscape_DeniedRenamedOrLinked(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, map[string]any{"denyRead": []string{"secret", "secret2"}})
		out, err := b.hostScript(t, `echo "TOP SECRET one" > secret && echo "TOP SECRET two" > secret2`, "")
		require.NoError(t, err, "%s", out)
		r := b.bash(t, "mv secret notsecret && ln secret2 linked && echo moved")
		if r.Stdout != "moved\n" {
			// The command could not: with a mount namespace the denied
			// files are hidden by mounts (§14), which cannot be renamed or
			// linked. A command without one can, so the file tools must
			// judge the moved file all the same: move it from outside.
			require.Contains(t, r.Stderr, "busy", "the attack's own steps failed otherwise: %s", r.Stderr)
			out, err := b.hostScript(t, "mv secret notsecret && ln secret2 linked", "")
			require.NoError(t, err, "%s", out)
		}
		for _, p := range []string{"notsecret", "linked"} {
			res, e := b.s.request(t, "tools/read", map[string]any{"path": p})
			require.NotNil(t, e, "tools/read %s served a denied file under another name: %s", p, res)
			require.Equal(t, "SANDBOX_DENIED", e.Kind, "%s: %v", p, e)
		}
		res := b.s.call(t, "tools/grep", map[string]any{"pattern": "TOP SECRET", "outputMode": "content"})
		require.NotContains(t, string(res), "TOP SECRET", "tools/grep showed a denied file under another name")
		_, e := b.s.request(t, "tools/read", map[string]any{"path": "README"})
		require.Nil(t, e, "a plain file stays readable")
	})
}
