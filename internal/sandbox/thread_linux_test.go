//go:build linux && !toolrpc_portable

package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolrpc/toolrpc/procgroup"
	"github.com/toolrpc/toolrpc/wire"
)

// threadPolicy resolves policy for a fresh testEnv on this machine (as one
// without a mount namespace, Landlock alone, with landlockOnly), or skips
// where no confined thread forks commands.
func threadPolicy(t *testing.T, policy wire.SandboxPolicy, landlockOnly bool) (*Resolved, Env) {
	t.Helper()
	env := testEnv(t)
	env.Machine = Probe()
	if landlockOnly {
		env.Machine.MountNS = false
	}
	if env.Machine.LandlockABI == 0 {
		t.Skip("no Landlock")
	}
	r, err := Resolve(policy, env)
	require.NoError(t, err)
	if r.Fork() == nil {
		t.Skip("commands start through the wrapper here (mount namespace through a user namespace)")
	}
	return r, env
}

// requireOnlyConfined checks that the threads of this process with
// no_new_privs are the confined threads, and no other: a retired one may
// take a moment to end after its goroutine returned.
func requireOnlyConfined(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool { return confinedThreads(t) == int(confinedLive.Load()) }, 5*time.Second, 5*time.Millisecond,
		"%d threads have no_new_privs, %d are confined", confinedThreads(t), confinedLive.Load())
}

// confinedThreads counts this process's threads with no_new_privs: the
// sandbox's confined threads, as the server sets it on no other.
func confinedThreads(t *testing.T) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	n := 0
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err == nil && bytes.Contains(b, []byte("\nNoNewPrivs:\t1\n")) {
			n++
		}
	}
	return n
}

// TestThreadConfinesOnlyItself checks that the thread that forks commands
// confines them (a write outside, a TCP connection with network off) while
// the rest of the server stays free: every other thread, old or made while
// commands are forked, writes outside the writable set and connects over
// TCP.
func TestThreadConfinesOnlyItself(t *testing.T) {
	t.Run("mount namespace", func(t *testing.T) { testThreadConfinesOnlyItself(t, false) })
	t.Run("Landlock alone", func(t *testing.T) { testThreadConfinesOnlyItself(t, true) })
}

func testThreadConfinesOnlyItself(t *testing.T, landlockOnly bool) {
	r, env := threadPolicy(t, wire.SandboxPolicy{Network: wire.NetworkOff}, landlockOnly)
	defer r.Close()
	ws := env.Roots[0]
	outside := filepath.Join(filepath.Dir(ws), "outside")
	require.NoError(t, os.MkdirAll(outside, 0o755))
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
	port := ln.Addr().(*net.TCPAddr).Port

	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 8 {
		wg.Add(1)
		go func() { // commands, forked from the confined thread
			defer wg.Done()
			code, out := runIn(t, r, ws, fmt.Sprintf("echo x > %s/cmd%d", outside, i))
			if code == 0 {
				errs <- fmt.Errorf("command %d wrote outside: %s", i, out)
			}
			code, out = runIn(t, r, ws, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port))
			if code == 0 {
				errs <- fmt.Errorf("command %d connected with network off: %s", i, out)
			}
		}()
	}
	for i := range 4 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() { // the server's own work, some on threads made meanwhile
			defer wg.Done()
			runtime.LockOSThread() // forces new threads while the commands start
			defer runtime.UnlockOSThread()
			time.Sleep(time.Millisecond)
			if err := os.WriteFile(fmt.Sprintf("%s/server%d", outside, i), []byte("x"), 0o644); err != nil {
				errs <- fmt.Errorf("server goroutine %d: %w", i, err)
			}
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				errs <- fmt.Errorf("server goroutine %d: %w", i, err)
				return
			}
			c.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.Positive(t, confinedLive.Load())
	requireOnlyConfined(t)
	ents, err := os.ReadDir(outside)
	require.NoError(t, err)
	for _, e := range ents {
		require.True(t, strings.HasPrefix(e.Name(), "server"), e.Name())
	}
}

// TestThreadSeesNewGit checks that a .git made after the thread was
// confined (git init by a command) is protected from the next command on,
// as the wrapper protected it, and that a mount made in the server's
// namespace since reaches the next command.
func TestThreadSeesNewGit(t *testing.T) {
	env := testEnv(t)
	require.NoError(t, os.RemoveAll(filepath.Join(env.Roots[0], ".git")))
	env.Machine = Probe()
	if !env.Machine.MountNS || env.Machine.UserNS {
		t.Skip("needs root's mount namespace")
	}
	r, err := Resolve(wire.SandboxPolicy{}, env)
	require.NoError(t, err)
	defer r.Close()
	ws := env.Roots[0]
	code, out := runIn(t, r, ws, "git init -q . && ls .git/hooks >/dev/null && echo ok")
	require.Equal(t, 0, code, out)
	for _, attack := range []string{"echo evil > .git/hooks/pre-commit", "echo evil >> .git/config", "mv .git .git2"} {
		code, out = runIn(t, r, ws, attack)
		require.NotEqual(t, 0, code, "%s succeeded: %s", attack, out)
	}
	require.NoFileExists(t, filepath.Join(ws, ".git/hooks/pre-commit"))
	require.DirExists(t, filepath.Join(ws, ".git"))

	mnt := filepath.Join(ws, "mnt")
	require.NoError(t, os.Mkdir(mnt, 0o755))
	require.NoError(t, syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"))
	defer syscall.Unmount(mnt, syscall.MNT_DETACH)
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "f"), []byte("on tmpfs\n"), 0o644))
	code, out = runIn(t, r, ws, "cat mnt/f")
	require.Equal(t, 0, code, out)
	require.Equal(t, "on tmpfs\n", out)
}

// TestThreadRetires checks sandbox/update's Close: the old policy's thread
// ends once the command it forked is reaped, never before (a shell started
// with Pdeathsig dies with the thread that forked it), and a command forked
// after Close has a thread that ends with it.
func TestThreadRetires(t *testing.T) {
	r, env := threadPolicy(t, wire.SandboxPolicy{}, false)
	ws := env.Roots[0]
	before := confinedLive.Load()
	var out bytes.Buffer
	g, err := procgroup.Start(procgroup.Spec{Command: "sleep 0.5; echo slept", Dir: ws, Stdout: &out, Stderr: &out, Fork: r.Fork()})
	require.NoError(t, err)
	t.Logf("kill mode %s", procgroup.Mode())
	if procgroup.Mode() == "cgroup" {
		own, err := os.ReadFile("/proc/self/cgroup")
		require.NoError(t, err)
		its, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", g.Pid()))
		require.NoError(t, err)
		require.NotEqual(t, string(own), string(its), "the command is not in a call cgroup")
	}
	require.Equal(t, before+1, confinedLive.Load())
	r.Close()
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, syscall.Kill(g.Pid(), 0), "the command died with its thread's retirement")
	require.Equal(t, before+1, confinedLive.Load(), "the thread ended before its command")
	st, err := g.Wait()
	require.NoError(t, err)
	require.Equal(t, 0, st.ExitCode, out.String())
	require.Equal(t, "slept\n", out.String())
	require.Eventually(t, func() bool { return confinedLive.Load() == before }, 5*time.Second, 10*time.Millisecond)
	requireOnlyConfined(t)

	code, text := runIn(t, r, ws, "echo after")
	require.Equal(t, 0, code, text)
	require.Eventually(t, func() bool { return confinedLive.Load() == before }, 5*time.Second, 10*time.Millisecond)
	requireOnlyConfined(t)
}

// TestThreadTreeKill checks that a command forked from the confined thread
// is killed whole: a background child it started dies with it.
func TestThreadTreeKill(t *testing.T) {
	r, env := threadPolicy(t, wire.SandboxPolicy{}, false)
	defer r.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	g, err := procgroup.Start(procgroup.Spec{Command: "setsid sleep 60 >/dev/null 2>&1 & echo $!; wait", Dir: env.Roots[0],
		Stdout: writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(b) }), Fork: r.Fork()})
	require.NoError(t, err)
	var child int
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		_, err := fmt.Sscanf(out.String(), "%d\n", &child)
		return err == nil
	}, 5*time.Second, 5*time.Millisecond)
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	g.Kill()
	waited := make(chan struct{})
	go func() { _, _ = g.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return: the command's processes outlived Kill")
	}
	require.Eventually(t, func() bool { return syscall.Kill(child, 0) == syscall.ESRCH }, 5*time.Second, 10*time.Millisecond,
		"the command's child %d outlived Kill", child)
}

// writerFunc is an io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
