//go:build linux

package procgroup

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// deadPid returns the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	require.NoError(t, c.Run())
	return c.Process.Pid
}

// sleeper starts "sleep 1000" with extra environment entries and reaps it at
// the end of the test.
func sleeper(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command("sleep", "1000")
	c.Env = append(os.Environ(), env...)
	require.NoError(t, c.Start())
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	return c
}

func aliveProc(pid int) bool {
	st, ok := readStat(pid)
	return ok && !st.dead()
}

// TestSweepStaleCookies: a process whose cookie names a server that no
// longer runs is killed, with its descendants; one of a live server is not.
// Before the fix nothing swept cookie holders at start-up.
func TestSweepStaleCookies(t *testing.T) {
	stale := sleeper(t, fmt.Sprintf("%s=%d.%d.abc", CookieEnv, deadPid(t), 12345))
	staleTree := exec.Command("bash", "-c", "setsid sleep 1000 & echo $!; wait")
	staleTree.Env = append(os.Environ(), fmt.Sprintf("%s=%d.%d.def", CookieEnv, deadPid(t), 1))
	out, err := staleTree.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, staleTree.Start())
	t.Cleanup(func() { _ = staleTree.Process.Kill(); _ = staleTree.Wait() })
	var detached int
	_, err = fmt.Fscan(out, &detached)
	require.NoError(t, err)
	live := sleeper(t, CookieEnv+"="+serverPrefix()+"ghi")
	other := sleeper(t, CookieEnv+"=0123456789abcdef01234567") // an older server's format

	sweepStaleCookies()
	require.False(t, aliveProc(stale.Process.Pid), "stale cookie holder alive")
	require.False(t, aliveProc(staleTree.Process.Pid), "stale cookie holder alive")
	require.False(t, aliveProc(detached), "detached child of a stale cookie holder alive")
	require.True(t, aliveProc(live.Process.Pid), "a live server's command was killed")
	require.True(t, aliveProc(other.Process.Pid), "a cookie of another format was taken for a stale one")
}

// replyWaitTest bounds waits for helper processes; not a speed check.
var replyWaitTest = time.Minute

// TestSweepStaleCookiesOtherPIDNamespace: a command of a server in another
// PID namespace (a container: its cookie's pid names nothing here) is not
// this sweep's to judge. Before the fix a server on the host killed every
// command of every toolrpc in a container on the same machine.
func TestSweepStaleCookiesOtherPIDNamespace(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and unshare(1) to make a PID namespace")
	}
	cookie := fmt.Sprintf("%s=%d.%d.abc", CookieEnv, deadPid(t), 12345)
	// Only the process inside holds the cookie (env sets it there).
	c := exec.Command("unshare", "--pid", "--fork", "--kill-child", "env", cookie, "sleep", "1000")
	require.NoError(t, c.Start())
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	var inner int
	require.Eventually(t, func() bool {
		for _, p := range listProcs() {
			if p.ppid == c.Process.Pid && !inOwnPIDNamespace(p.pid) {
				inner = p.pid
				return true
			}
		}
		return false
	}, replyWaitTest, 5*time.Millisecond, "the sleeper in its own PID namespace never started")
	sweepStaleCookies()
	require.True(t, aliveProc(inner), "a command in another PID namespace was swept")
}

func TestCookieOf(t *testing.T) {
	tests := []struct {
		env  string
		want string
	}{
		{CookieEnv + "=a.b.c\x00", "a.b.c"},
		{"X=1\x00" + CookieEnv + "=v\x00Y=2\x00", "v"},
		{"X" + CookieEnv + "=v\x00", ""},
		{CookieEnv + "=", ""},
		{"", ""},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, string(cookieOf([]byte(tc.env))), "%q", tc.env)
	}
}

// FuzzCookieOf checks cookieOf against splitting the block on NUL.
func FuzzCookieOf(f *testing.F) {
	f.Add([]byte(CookieEnv + "=1.2.x\x00A=b\x00"))
	f.Add([]byte("A=b\x00" + CookieEnv + "=\x00" + CookieEnv + "=2"))
	f.Fuzz(func(t *testing.T, env []byte) {
		var want []byte
		for _, e := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(e, []byte(CookieEnv+"=")); ok {
				want = v
				break
			}
		}
		require.Equal(t, string(want), string(cookieOf(env)))
	})
}

// spawnWithGuardianAttrEnv makes the test binary a parent that starts
// "sleep 1000" with guardianAttr, prints its pid and exits at once.
const spawnWithGuardianAttrEnv = "PROCGROUP_TEST_SPAWN_WITH_GUARDIAN_ATTR"

// TestGuardian_DeathSignalBeforeItsRuntime: the guardian's parent-death
// signal can arrive before the guardian's runtime has installed a handler
// (the server SIGKILLed just after it replaced a dead guardian); the signal's
// default action then applies, and it must not kill the guardian: the stdin
// pipe's end of file still tells it the server died. A parent that starts
// sleep — a program that handles no signal — with the guardian's attributes
// and exits stands for that moment. Before the fix the signal was SIGUSR1,
// whose default action terminates, and the guardian died with its server,
// leaving the commands alive (TestSurvivors_ServerSIGKILLed, under load).
func TestGuardian_DeathSignalBeforeItsRuntime(t *testing.T) {
	if os.Getenv(spawnWithGuardianAttrEnv) == "1" {
		c := exec.Command("sleep", "1000")
		c.SysProcAttr = guardianAttr()
		if err := c.Start(); err != nil {
			os.Exit(2)
		}
		fmt.Println(c.Process.Pid)
		os.Exit(0)
	}
	parent := exec.Command(os.Args[0], "-test.run=^TestGuardian_DeathSignalBeforeItsRuntime$")
	parent.Env = append(os.Environ(), spawnWithGuardianAttrEnv+"=1")
	out, err := parent.Output()
	require.NoError(t, err)
	var pid int
	_, err = fmt.Sscan(string(out), &pid)
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	// The signal was sent as the parent exited, before its Wait returned;
	// a default action that terminates has had a second to act.
	time.Sleep(time.Second)
	require.True(t, aliveProc(pid), "the process started with guardianAttr died with its parent")
}
