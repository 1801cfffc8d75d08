package conformance

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The TestSandbox_* tests run every rule of SPEC §14 against the real
// binary, once as the user running the suite and, when that is root, once
// more as an unprivileged user (setpriv), in a home and a workspace of
// their own outside /tmp (which every policy makes writable).

// sandboxUID is the unprivileged user the tests run the server as, when the
// suite runs as root.
const sandboxUID = 34071

// sandboxBox is one test's server, home and workspace.
type sandboxBox struct {
	s         *server
	home, ws  string
	outside   string // a directory no policy makes writable
	asRoot    bool
	uid       int
	initState sandboxState
}

// sandboxState mirrors SPEC §14's statement of the policy in force.
type sandboxState struct {
	Mode       string   `json:"mode"`
	Requested  string   `json:"requested"`
	Network    string   `json:"network"`
	Writable   []string `json:"writable"`
	DenyRead   []string `json:"denyRead"`
	Protect    []string `json:"protect"`
	EnforcedBy []string `json:"enforcedBy"`
	Gaps       []string `json:"gaps"`
}

// sandboxReport mirrors a result's sandbox member.
type sandboxReport struct {
	Denied []struct {
		Op   string `json:"op"`
		Path string `json:"path"`
		Addr string `json:"addr"`
	} `json:"denied"`
	Notice  string   `json:"notice"`
	Changed []string `json:"changed"`
}

// sandboxBash is a BashResult with its sandbox member.
type sandboxBash struct {
	ExitCode *int           `json:"exitCode"`
	Stdout   string         `json:"stdout"`
	Stderr   string         `json:"stderr"`
	Sandbox  *sandboxReport `json:"sandbox"`
}

// unprivilegedBin copies the server binary into dir, where every user may
// run it (the test binary may sit in a directory only root can enter).
func unprivilegedBin(t *testing.T, dir string) string {
	b, err := os.ReadFile(bin)
	require.NoError(t, err)
	exe := filepath.Join(dir, "toolrpc")
	require.NoError(t, os.WriteFile(exe, b, 0o755))
	return exe
}

// forEachUser runs f as the suite's user and, as root, as sandboxUID too.
func forEachUser(t *testing.T, f func(t *testing.T, asRoot bool)) {
	if overTransport() {
		t.Skip("the sandbox tests set up users and homes on this machine")
	}
	t.Run("self", func(t *testing.T) { f(t, os.Geteuid() == 0) })
	if os.Geteuid() != 0 {
		return
	}
	t.Run("unprivileged", func(t *testing.T) { f(t, false) })
}

// newSandboxBox makes a home (with credentials and a .bashrc) and a git
// workspace, owned by the user the server runs as, and starts the server
// with policy as initializationOptions.sandbox (nil: none, the default
// auto).
func newSandboxBox(t *testing.T, asRoot bool, policy map[string]any, extra ...option) *sandboxBox {
	t.Helper()
	return newSandboxBoxIn(t, "/var/tmp", asRoot, policy, extra...)
}

// newSandboxBoxGit is newSandboxBox, whose workspace is a git repository
// only when gitInit is set.
func newSandboxBoxGit(t *testing.T, asRoot bool, policy map[string]any, gitInit bool) *sandboxBox {
	t.Helper()
	return newSandboxBoxMade(t, "/var/tmp", asRoot, policy, gitInit)
}

// newSandboxBoxIn is newSandboxBox with the box made in dir, and the
// server started with the extra options too.
func newSandboxBoxIn(t *testing.T, dir string, asRoot bool, policy map[string]any, extra ...option) *sandboxBox {
	t.Helper()
	return newSandboxBoxMade(t, dir, asRoot, policy, true, extra...)
}

// newSandboxBoxMade makes the box in dir, its workspace a git repository
// when gitInit is set, and starts the server with the extra options too.
func newSandboxBoxMade(t *testing.T, dir string, asRoot bool, policy map[string]any, gitInit bool, extra ...option) *sandboxBox {
	t.Helper()
	base, err := os.MkdirTemp(dir, "toolrpc-sandbox-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o755))
	b := &sandboxBox{home: filepath.Join(base, "home"), ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"),
		asRoot: asRoot, uid: os.Geteuid()}
	for _, d := range []string{b.home + "/.ssh", b.home + "/.aws", b.ws, b.outside, base + "/data"} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	files := map[string]string{
		b.home + "/.ssh/id_ed25519": "PRIVATE KEY\n", b.home + "/.ssh/id_ed25519.pub": "ssh-ed25519 AAAA\n",
		b.home + "/.ssh/known_hosts": "host key\n", b.home + "/.aws/credentials": "aws secret\n",
		b.home + "/.bashrc": "# rc\n", b.outside + "/f": "outside\n", b.ws + "/README": "readme\n",
		b.home + "/.gitconfig": "[user]\n\tname = Sandbox\n\temail = s@example.com\n[safe]\n\tdirectory = *\n",
	}
	for p, c := range files {
		require.NoError(t, os.WriteFile(p, []byte(c), 0o644))
	}
	require.NoError(t, os.Chmod(b.home+"/.ssh/id_ed25519", 0o600))
	if gitInit {
		git := exec.Command("git", "init", "-q", b.ws)
		git.Env = append(os.Environ(), "HOME="+b.home)
		out, err := git.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	opts := []option{withRoot(b.ws), withDataDir(base + "/data"), withEnv("HOME="+b.home, "GIT_CONFIG_NOSYSTEM=1")}
	opts = append(opts, extra...)
	if policy != nil {
		opts = append(opts, withInitParams(func(p map[string]any) {
			p["initializationOptions"].(map[string]any)["sandbox"] = policy
		}))
	}
	opts = append(opts, extra...)
	if os.Geteuid() == 0 && !asRoot {
		b.uid = sandboxUID
		require.NoError(t, exec.Command("chown", "-R", fmt.Sprintf("%d:%d", sandboxUID, sandboxUID), base).Run())
		exe := unprivilegedBin(t, base)
		wrapper := filepath.Join(base, "as-user")
		require.NoError(t, os.WriteFile(wrapper, []byte(fmt.Sprintf("#!/bin/sh\nexec setpriv --reuid=%d --regid=%d --clear-groups %s \"$@\"\n",
			sandboxUID, sandboxUID, exe)), 0o755))
		saved := bin
		bin = wrapper
		defer func() { bin = saved }() // a second box of the test copies the server again
	}
	b.s = start(t, opts...)
	var init struct {
		Sandbox sandboxState `json:"sandbox"`
	}
	require.NoError(t, json.Unmarshal(b.s.InitResult, &init))
	b.initState = init.Sandbox
	if len(b.initState.EnforcedBy) == 0 {
		t.Fatalf("this machine enforces no sandbox (initialize says %+v); the suite needs Linux with Landlock", b.initState)
	}
	return b
}

// bash runs command in the workspace.
func (b *sandboxBox) bash(t *testing.T, command string) sandboxBash {
	t.Helper()
	return decode[sandboxBash](t, b.s.call(t, "tools/bash", map[string]any{"command": command}))
}

// requireDenied checks that r failed and that its sandbox member names op
// on path with §14's notice.
func requireDenied(t *testing.T, r sandboxBash, op, path string) {
	t.Helper()
	require.NotNil(t, r.Sandbox, "no sandbox member; stderr: %s", r.Stderr)
	for _, d := range r.Sandbox.Denied {
		if d.Op == op && (path == "" || d.Path == path) {
			require.Contains(t, r.Sandbox.Notice, "[sandbox: ")
			return
		}
	}
	t.Fatalf("sandbox.denied %+v does not name %s %s; stderr: %s", r.Sandbox.Denied, op, path, r.Stderr)
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// TestSandbox_InitializeStatesPolicy checks SPEC §14: auto is
// workspace-write on Linux with Landlock, and initialize states the policy
// field by field with resolved paths and the mechanisms that enforce it.
func TestSandbox_InitializeStatesPolicy(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		st := b.initState
		require.Equal(t, "workspace-write", st.Mode)
		require.Equal(t, "auto", st.Requested)
		require.Equal(t, "on", st.Network)
		require.Contains(t, st.Writable, b.ws)
		require.Contains(t, st.Writable, "/tmp")
		require.Contains(t, st.Writable, b.home+"/.cache")
		require.Contains(t, st.DenyRead, b.home+"/.ssh/id_*")
		require.Contains(t, st.DenyRead, b.home+"/.aws")
		require.Contains(t, st.Protect, b.ws+"/.git/hooks")
		require.Contains(t, st.Protect, b.ws+"/.git/config")
		require.True(t, strings.HasPrefix(st.EnforcedBy[0], "landlock:"), "%v", st.EnforcedBy)
	})
}

// TestSandbox_MCPInitializeStatesPolicy checks SPEC §14 on the MCP face
// (§12): initialize's capabilities.experimental["toolrpc/sandbox"] states
// the policy in force — the default auto as workspace-write with the --root
// writable and the mechanisms, and the --sandbox flags as given.
func TestSandbox_MCPInitializeStatesPolicy(t *testing.T) {
	ws := t.TempDir()
	state := func(t *testing.T, args ...string) sandboxState {
		s := mcpStart(t, mcpOptions{roots: []string{ws}, args: args})
		ir := s.cs.InitializeResult()
		require.NotNil(t, ir.Capabilities)
		v, ok := ir.Capabilities.Experimental["toolrpc/sandbox"]
		require.True(t, ok, "capabilities: %+v", ir.Capabilities)
		raw, err := json.Marshal(v)
		require.NoError(t, err)
		var st sandboxState
		require.NoError(t, json.Unmarshal(raw, &st))
		return st
	}
	st := state(t)
	require.Equal(t, "workspace-write", st.Mode)
	require.Equal(t, "auto", st.Requested)
	require.Equal(t, "on", st.Network)
	require.Contains(t, st.Writable, canonicalPath(t, ws))
	require.Contains(t, st.Writable, "/tmp")
	require.NotEmpty(t, st.DenyRead)
	require.NotEmpty(t, st.EnforcedBy)
	require.True(t, strings.HasPrefix(st.EnforcedBy[0], "landlock:"), "%v", st.EnforcedBy)

	st = state(t, "--sandbox", "read-only", "--network", "off")
	require.Equal(t, "read-only", st.Mode)
	require.Equal(t, "off", st.Network)
	require.NotContains(t, st.Writable, canonicalPath(t, ws))

	st = state(t, "--sandbox", "off")
	require.Equal(t, "off", st.Mode)
	require.Empty(t, st.EnforcedBy)
}

// canonicalPath is path with its symlinks resolved.
func canonicalPath(t *testing.T, path string) string {
	p, err := filepath.EvalSymlinks(path)
	require.NoError(t, err)
	return p
}

// TestSandbox_WritesOutsideDenied checks SPEC §14: a command writes the
// workspace and /tmp, and nothing outside — not directly, not through a
// symlink, not through "..", not through a hard link made inside, not even
// a file's mode or times — and the result names the denied write.
func TestSandbox_WritesOutsideDenied(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		r := b.bash(t, "echo ok > new.txt && mkdir -p d/e && echo ok > d/e/f && echo ok > /tmp/toolrpc-sandbox-$$ && rm /tmp/toolrpc-sandbox-$$ && cat new.txt")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		require.Nil(t, r.Sandbox)

		r = b.bash(t, "echo evil >> "+b.home+"/.bashrc")
		require.NotEqual(t, 0, *r.ExitCode)
		requireDenied(t, r, "write", b.home+"/.bashrc")
		require.Equal(t, "[sandbox: write to "+b.home+"/.bashrc denied — writable: the workspace, /tmp, caches. The host can add it with sandbox.writable.]", r.Sandbox.Notice)

		r = b.bash(t, "ln -s "+b.home+"/.bashrc link && echo evil >> link")
		require.NotEqual(t, 0, *r.ExitCode)
		requireDenied(t, r, "write", b.home+"/.bashrc")

		r = b.bash(t, "echo evil > ../outside/new")
		require.NotEqual(t, 0, *r.ExitCode)
		requireDenied(t, r, "write", b.outside+"/new")
		require.NoFileExists(t, b.outside+"/new")

		fi, err := os.Stat(b.outside + "/f")
		require.NoError(t, err)
		for _, attack := range []string{"chmod 777 ../outside/f", "touch -d 2001-01-01 ../outside/f", "chmod 777 " + b.home + "/.bashrc"} {
			r = b.bash(t, attack)
			require.NotEqual(t, 0, *r.ExitCode, "%s succeeded", attack)
		}
		after, err := os.Stat(b.outside + "/f")
		require.NoError(t, err)
		require.Equal(t, fi.Mode(), after.Mode())
		require.Equal(t, fi.ModTime(), after.ModTime())

		r = b.bash(t, "ln ../outside/f hard && echo evil >> hard")
		require.NotEqual(t, 0, *r.ExitCode)
		require.Equal(t, "outside\n", fileText(t, b.outside+"/f"))
		require.Equal(t, "# rc\n", fileText(t, b.home+"/.bashrc"))
	})
}

// TestSandbox_ReadOnlyMountInWritable checks SPEC §14: a read-only mount under /tmp (a
// snap's squashfs, a read-only tmpfs) leaves /tmp writable and the mount
// read-only. In the unprivileged server's user namespace that mount is
// locked read-only, and making /tmp writable again refused every command
// ("writable /tmp: operation not permitted", exit 125) until each mount
// below a writable path was cleared on its own.
func TestSandbox_ReadOnlyMountInWritable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a read-only tmpfs under /tmp needs root")
	}
	ro, err := os.MkdirTemp("/tmp", "toolrpc-romount-")
	require.NoError(t, err)
	require.NoError(t, exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,mode=0777", "tmpfs", ro).Run())
	t.Cleanup(func() { _ = exec.Command("umount", ro).Run(); _ = os.Remove(ro) })
	require.NoError(t, exec.Command("mount", "-o", "remount,ro", ro).Run())
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		r := b.bash(t, "echo ok > /tmp/toolrpc-sandbox-$$ && rm /tmp/toolrpc-sandbox-$$ && echo ok > new.txt && cat new.txt")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		require.Equal(t, "ok\n", r.Stdout)
		r = b.bash(t, "touch "+ro+"/x")
		require.NotEqual(t, 0, *r.ExitCode)
		require.Contains(t, r.Stderr, "Read-only file system")
	})
}

// TestSandbox_ServerStartedInRecreatedRoot checks SPEC §14: a server started
// inside its workspace root (as editors start it) keeps running commands
// confined after that root is deleted and made again (a fresh clone into
// the same path). The server's own working directory then has no path; the
// confined thread asked for it to re-enter it through the protected binds,
// and refused every command with SANDBOX_UNAVAILABLE ("getwd: no such file
// or directory") for the rest of the session. The fault campaign found it.
func TestSandbox_ServerStartedInRecreatedRoot(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		require.NoError(t, os.RemoveAll(b.ws))
		require.NoError(t, os.Mkdir(b.ws, 0o755))
		require.NoError(t, os.Chown(b.ws, b.uid, b.uid))
		r := b.bash(t, "pwd && echo ok > new.txt && cat new.txt")
		require.NotNil(t, r.ExitCode, "stderr: %s", r.Stderr)
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		require.Equal(t, canonicalPath(t, b.ws)+"\nok\n", r.Stdout)
		r = b.bash(t, "echo pwned >> "+b.home+"/.bashrc")
		require.NotEqual(t, 0, *r.ExitCode)
		requireDenied(t, r, "write", b.home+"/.bashrc")
		require.Equal(t, "# rc\n", fileText(t, b.home+"/.bashrc"))
	})
}

// TestSandbox_GitProtected checks SPEC §14: .git/hooks, .git/config and the
// .git directory itself cannot be written, replaced, renamed or removed,
// while git add, commit, checkout -b and stash work.
func TestSandbox_GitProtected(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		r := b.bash(t, "git add README && git commit -qm one && git checkout -q -b topic && echo more >> README && git stash -q && git stash list | wc -l && git log --oneline | wc -l")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		require.Equal(t, "1\n1\n", r.Stdout)
		config := fileText(t, b.ws+"/.git/config")
		for _, attack := range []string{
			"printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
			"git config core.hooksPath /tmp",
			"echo '[core] fsmonitor = evil' >> .git/config",
			"cp .git/config c && echo '[core] hooksPath = /tmp' >> c && mv c .git/config",
			"mv .git/hooks .git/hooks-old",
			"mv .git .git-old",
			"rm -rf .git/hooks",
		} {
			r = b.bash(t, attack)
			require.NotEqual(t, 0, *r.ExitCode, "%s succeeded", attack)
			require.NotNil(t, r.Sandbox, "%s: no sandbox member; stderr %s", attack, r.Stderr)
		}
		require.NoFileExists(t, b.ws+"/.git/hooks/pre-commit")
		require.Equal(t, config, fileText(t, b.ws+"/.git/config"))
		require.DirExists(t, b.ws+"/.git/hooks")
		r = b.bash(t, "rm -rf .git")
		require.NotEqual(t, 0, *r.ExitCode)
		require.DirExists(t, b.ws+"/.git")
		require.Equal(t, config, fileText(t, b.ws+"/.git/config"))
	})
}

// TestSandbox_NewGitProtected checks SPEC §14: a .git made after the
// session's policy was resolved (git init by a command) is protected, with
// its hooks and config, from the next command on.
func TestSandbox_NewGitProtected(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		require.NoError(t, os.RemoveAll(b.ws+"/.git"))
		// The policy resolved again, with no .git in the workspace.
		decode[sandboxState](t, b.s.call(t, "sandbox/update", map[string]any{}))
		r := b.bash(t, "git init -q . && ls .git/hooks >/dev/null")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		config := fileText(t, b.ws+"/.git/config")
		for _, attack := range []string{
			"printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit",
			"echo '[core] fsmonitor = evil' >> .git/config",
			"mv .git .git-old",
		} {
			r = b.bash(t, attack)
			require.NotEqual(t, 0, *r.ExitCode, "%s succeeded", attack)
		}
		require.NoFileExists(t, b.ws+"/.git/hooks/pre-commit")
		require.Equal(t, config, fileText(t, b.ws+"/.git/config"))
		require.DirExists(t, b.ws+"/.git")
	})
}

// TestSandbox_SetupFailureNeverRuns checks SPEC §14's "never in silence":
// when the sandbox cannot be set up (here a protected path that is a
// dangling symlink, which cannot be bound), the command does not run and
// the result says why: SANDBOX_UNAVAILABLE where the server confines a
// thread of its own (root, but for the portable build), exit code 125 from
// the wrapper otherwise.
func TestSandbox_SetupFailureNeverRuns(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, map[string]any{"protect": []string{"dangling"}})
		if !slices.ContainsFunc(b.initState.EnforcedBy, func(s string) bool { return strings.HasSuffix(s, "mount-namespace") }) {
			t.Skip("no mount namespace here: protected paths are not bound")
		}
		require.NoError(t, os.Symlink(b.ws+"/nowhere", b.ws+"/dangling"))
		if !asRoot && os.Geteuid() == 0 {
			require.NoError(t, exec.Command("chown", "-h", fmt.Sprintf("%d:%d", sandboxUID, sandboxUID), b.ws+"/dangling").Run())
		}
		raw, e := b.s.request(t, "tools/bash", map[string]any{"command": "echo ran > ran"})
		if asRoot && rootForksFromThread {
			require.NotNil(t, e, "ran: %s", raw)
			require.Equal(t, "SANDBOX_UNAVAILABLE", e.Kind, e.Message)
			require.Contains(t, e.Message, "the command did not run")
		} else {
			r := decode[sandboxBash](t, raw)
			require.Equal(t, 125, *r.ExitCode, r.Stderr)
			require.Contains(t, r.Stderr, "the command did not run")
		}
		require.NoFileExists(t, b.ws+"/ran")
	})
}

// TestSandbox_CachesWritable checks SPEC §14: the toolchain caches are
// writable, so go build with a fresh GOCACHE under ~/.cache and an npm
// install of a local tarball work.
func TestSandbox_CachesWritable(t *testing.T) {
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the suite needs go")
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		r := b.bash(t, "mkdir m && cd m && printf 'module m\\ngo 1.21\\n' > go.mod && printf 'package main\\nfunc main(){println(\"built\")}\\n' > main.go && "+
			"GOCACHE=$HOME/.cache/go-fresh GOTOOLCHAIN=local GOFLAGS=-mod=mod "+goBin+" build -o m . && ./m")
		require.Equal(t, 0, *r.ExitCode, "%s\n%s", r.Stdout, r.Stderr)
		require.Contains(t, r.Stderr, "built")
		require.DirExists(t, b.home+"/.cache/go-fresh")
		if _, err := exec.LookPath("npm"); err != nil {
			t.Fatal("the suite needs npm")
		}
		r = b.bash(t, "mkdir -p pkg app && cd pkg && printf '{\"name\":\"sbx-pkg\",\"version\":\"1.0.0\"}' > package.json && echo 'module.exports=1' > index.js && "+
			"npm pack --silent >/dev/null && cd ../app && npm install --offline --no-audit --no-fund --silent ../pkg/sbx-pkg-1.0.0.tgz && ls node_modules")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		require.Contains(t, r.Stdout, "sbx-pkg")
		require.DirExists(t, b.home+"/.npm")
	})
}

// TestSandbox_CredentialsUnreadable checks SPEC §14: the deny list (a
// private key, ~/.aws) is unreadable by cat and python3, while the public
// key and known_hosts stay readable; the result names the denied read.
func TestSandbox_CredentialsUnreadable(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		key := b.home + "/.ssh/id_ed25519"
		r := b.bash(t, "cat "+key)
		require.NotEqual(t, 0, *r.ExitCode)
		require.NotContains(t, r.Stdout, "PRIVATE")
		requireDenied(t, r, "read", key)
		r = b.bash(t, "python3 -c 'print(open(\""+b.home+"/.aws/credentials\").read())'")
		require.NotEqual(t, 0, *r.ExitCode)
		require.NotContains(t, r.Stdout, "secret")
		requireDenied(t, r, "read", b.home+"/.aws/credentials")
		r = b.bash(t, "cat ~/.ssh/id_ed25519.pub ~/.ssh/known_hosts && ls ~/.ssh | sort | tr '\\n' ' '")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		require.Contains(t, r.Stdout, "ssh-ed25519")
	})
}

// TestSandbox_NoReachOutside checks SPEC §14: a command cannot signal,
// ptrace or read /proc/PID/environ of the server or the host, cannot mount
// (not even in a user namespace of its own), and as root holds no
// capabilities.
func TestSandbox_NoReachOutside(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		for _, pid := range []int{b.s.pid(), os.Getpid()} {
			p := strconv.Itoa(pid)
			for _, attack := range []string{"kill -0 " + p, "cat /proc/" + p + "/environ", "head -c1 /proc/" + p + "/mem",
				"python3 -c 'import ctypes,sys; sys.exit(0 if ctypes.CDLL(None).ptrace(16," + p + ",0,0)==0 else 1)'"} {
				r := b.bash(t, attack)
				require.NotEqual(t, 0, *r.ExitCode, "%s succeeded", attack)
			}
		}
		r := b.bash(t, "kill -0 $$ && sleep 30 & kill $! && wait; echo own")
		require.Contains(t, r.Stdout, "own")
		for _, attack := range []string{"mkdir -p m && mount -t tmpfs none m", "unshare -Urm sh -c 'mount -t tmpfs none /mnt'",
			"mkdir -p m && mount --bind / m"} {
			r := b.bash(t, attack)
			require.NotEqual(t, 0, *r.ExitCode, "%s succeeded", attack)
		}
		r = b.bash(t, "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimSpace(v)
			if k == "NoNewPrivs" {
				require.Equal(t, "1", v)
			} else {
				require.Equal(t, "0000000000000000", v, "%s as uid %d", k, b.uid)
			}
		}
	})
}

// TestSandbox_NetworkOff checks SPEC §14: with network off, TCP connect, UDP
// and DNS fail and the result names the denied connect, while Unix-domain
// sockets work; with network on, a localhost connection works.
func TestSandbox_NetworkOff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	forEachUser(t, func(t *testing.T, asRoot bool) {
		on := newSandboxBox(t, asRoot, nil)
		r := on.bash(t, "exec 3<>/dev/tcp/127.0.0.1/"+port+" && echo connected")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)

		b := newSandboxBox(t, asRoot, map[string]any{"network": "off"})
		require.Equal(t, "off", b.initState.Network)
		require.Contains(t, b.initState.EnforcedBy, "seccomp")
		r = b.bash(t, "exec 3<>/dev/tcp/127.0.0.1/"+port+" && echo connected")
		require.NotEqual(t, 0, *r.ExitCode)
		require.NotContains(t, r.Stdout, "connected")
		requireDenied(t, r, "connect", "")
		require.Contains(t, r.Sandbox.Notice, "sandbox.network: on")
		for _, attack := range []string{
			"python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"127.0.0.1\", 53))'",
			"python3 -c 'import socket; socket.socket(socket.AF_INET6, socket.SOCK_STREAM)'",
			"python3 -c 'import socket; socket.getaddrinfo(\"example.com\", 80)'",
		} {
			r = b.bash(t, attack)
			require.NotEqual(t, 0, *r.ExitCode, "%s succeeded", attack)
		}
		r = b.bash(t, "python3 -c '\nimport socket,os\np=\"/tmp/sbx-%d.sock\"%os.getpid()\ns=socket.socket(socket.AF_UNIX); s.bind(p); s.listen()\nc=socket.socket(socket.AF_UNIX); c.connect(p); os.unlink(p)\na,b=socket.socketpair(); a.send(b\"hi\"); print(b.recv(2).decode())'")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		require.Equal(t, "hi\n", r.Stdout)
	})
}

// TestSandbox_WideningIsHostOnly checks SPEC §14: no tool param (env, cwd),
// environment variable or workspace file widens the policy; sandbox/update
// from the host does, from the next call, and is not a tool.
func TestSandbox_WideningIsHostOnly(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		for _, f := range []string{".toolrpc.json", ".toolrpc/sandbox.json"} {
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(b.ws, f)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(b.ws, f), []byte(`{"sandbox":{"mode":"off","writable":["`+b.outside+`"]}}`), 0o644))
		}
		if !asRoot && os.Geteuid() == 0 {
			require.NoError(t, exec.Command("chown", "-R", fmt.Sprintf("%d:%d", sandboxUID, sandboxUID), b.ws).Run())
		}
		target := b.outside + "/widened"
		env := map[string]string{"TMPDIR": b.outside, "HOME": b.outside, "GOCACHE": b.outside, "TOOLRPC_SANDBOX": "off", "SANDBOX": "off"}
		r := decode[sandboxBash](t, b.s.call(t, "tools/bash", map[string]any{"command": "echo x > " + target, "env": env}))
		require.NotEqual(t, 0, *r.ExitCode)
		require.NoError(t, os.MkdirAll(b.ws+"/sub", 0o777))
		r = decode[sandboxBash](t, b.s.call(t, "tools/bash", map[string]any{"command": "echo x > ../../outside/widened", "cwd": "sub"}))
		require.NotEqual(t, 0, *r.ExitCode)
		e := b.s.callErr(t, "tools/bash", map[string]any{"command": "echo x > widened", "cwd": b.outside})
		require.Equal(t, "PERMISSION_DENIED", e.Kind)
		require.NoFileExists(t, target)

		var list []struct {
			Name string `json:"name"`
		}
		require.NoError(t, json.Unmarshal(b.s.call(t, "tools/list", nil), &list))
		require.NotEmpty(t, list)
		for _, tool := range list {
			require.NotContains(t, tool.Name, "sandbox")
		}
		st := decode[sandboxState](t, b.s.call(t, "sandbox/update", map[string]any{"writable": []string{b.outside}}))
		require.Contains(t, st.Writable, b.outside)
		r = b.bash(t, "echo x > "+target)
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		require.FileExists(t, target)
		e = b.s.callErr(t, "sandbox/update", map[string]any{"mode": "everything"})
		require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	})
}

// TestSandbox_ProcessesConfined checks SPEC §13 and §14: a process runs
// under the session's policy (its writes outside are denied), a dev server
// on localhost works with network on, and with network off its failure is
// named in the reply.
func TestSandbox_ProcessesConfined(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, nil)
		reply := decode[procReply](t, b.s.call(t, "tools/process/start", map[string]any{
			"command": "echo evil >> " + b.home + "/.bashrc; echo done", "wait": map[string]any{"until": []string{"exit"}}}))
		require.Equal(t, "exited", reply.State)
		require.Equal(t, "# rc\n", fileText(t, b.home+"/.bashrc"))
		// A pty's shell is confined too, and its terminal works.
		reply = decode[procReply](t, b.s.call(t, "tools/process/start", map[string]any{
			"command": "echo evil >> " + b.home + "/.bashrc; echo ok > in-ws; tty -s && echo x > $(tty) && echo on-a-tty", "mode": "pty",
			"wait": map[string]any{"until": []string{"exit"}}}))
		require.Equal(t, "exited", reply.State, reply.Output)
		require.Contains(t, reply.Output, "on-a-tty")
		require.Equal(t, "# rc\n", fileText(t, b.home+"/.bashrc"))
		require.Equal(t, "ok\n", fileText(t, b.ws+"/in-ws"))

		serve := "python3 -c 'import http.server as h; s=h.HTTPServer((\"127.0.0.1\",0),h.SimpleHTTPRequestHandler); print(\"port\",s.server_port,flush=True); s.serve_forever()'"
		reply = decode[procReply](t, b.s.call(t, "tools/process/start", map[string]any{
			"command": serve, "wait": map[string]any{"until": []string{"pattern"}, "pattern": "port \\d+"}}))
		require.Equal(t, "running", reply.State, reply.Output)
		port := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(reply.Output), "port "))
		r := b.bash(t, "exec 3<>/dev/tcp/127.0.0.1/"+port+" && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && head -1 <&3")
		require.Equal(t, 0, *r.ExitCode, r.Stderr)
		require.Contains(t, r.Stdout, "200")

		off := newSandboxBox(t, asRoot, map[string]any{"network": "off"})
		raw := off.s.call(t, "tools/process/start", map[string]any{"command": serve, "wait": map[string]any{"until": []string{"exit"}}})
		var failed struct {
			State   string         `json:"state"`
			Sandbox *sandboxReport `json:"sandbox"`
			Output  string         `json:"output"`
		}
		require.NoError(t, json.Unmarshal(raw, &failed))
		require.Equal(t, "exited", failed.State, failed.Output)
		require.NotNil(t, failed.Sandbox, "the reply does not name the sandbox: %s", failed.Output)
		require.Equal(t, "connect", failed.Sandbox.Denied[0].Op)
	})
}
