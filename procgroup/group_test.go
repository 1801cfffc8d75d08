//go:build linux

package procgroup

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// syncBuf is a bytes.Buffer safe for the reading goroutine and the test.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cookieHolders returns the live (non-zombie) processes whose environment
// holds the cookie.
func cookieHolders(cookie string) []int {
	kv := []byte(CookieEnv + "=" + cookie + "\x00")
	var pids []int
	for _, p := range listProcs() {
		if p.dead() {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/environ")
		if err != nil {
			continue
		}
		if bytes.HasPrefix(env, kv) || bytes.Contains(env, append([]byte{0}, kv...)) {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// waitHolders polls until at least n processes carry the cookie.
func waitHolders(t *testing.T, cookie string, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return len(cookieHolders(cookie)) >= n },
		10*time.Second, 5*time.Millisecond, "processes of the command never appeared")
}

// startT starts spec and makes sure the command's processes die with the test
// even when an assertion fails first.
func startT(t testing.TB, spec Spec) *Group {
	t.Helper()
	g, err := Start(spec)
	require.NoError(t, err)
	t.Cleanup(func() {
		g.Kill()
		_, _ = g.Wait()
	})
	return g
}

type mode struct {
	name     string
	noCgroup bool
}

func modes(t *testing.T) []mode {
	ms := []mode{{"sweep", true}}
	if useCgroup() {
		ms = append(ms, mode{"cgroup", false})
	} else {
		t.Log("cgroup v2 not usable here; only the sweep is tested")
	}
	return ms
}

// trees are the process trees every kill path must leave no survivor of.
var trees = []struct {
	name    string
	command string
	procs   int // processes carrying the cookie once the tree is up
}{
	{"background", "sleep 1000 & echo up; sleep 1000", 2},
	{"setsid", "setsid sleep 1000 & echo up; sleep 1000", 2},
	{"double fork", "(sleep 1000 &); echo up; sleep 1000", 2},
	{"setsid spawning loop", "(while :; do setsid sleep 1000 & sleep 0.001; done) & sleep 1000", 5},
	{"closes stdout early", "sleep 1000 >&- 2>&- & exec >&- 2>&-; sleep 1000", 2},
	{"ignores SIGTERM", "trap '' TERM; (trap '' TERM; setsid sleep 1000 & sleep 1000) & sleep 1000", 4},
}

func TestKillLeavesNoSurvivor(t *testing.T) {
	for _, m := range modes(t) {
		for _, tc := range trees {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				g := startT(t, Spec{Command: tc.command, Dir: t.TempDir(), noCgroup: m.noCgroup})
				waitHolders(t, g.Cookie(), tc.procs)
				g.Kill()
				require.Empty(t, cookieHolders(g.Cookie()))
				st, err := g.Wait()
				require.NoError(t, err)
				require.Equal(t, Status{ExitCode: -1, Signal: "SIGKILL"}, st)
				require.Empty(t, cookieHolders(g.Cookie()))
			})
		}
	}
}

// TestWaitKillsLeftovers covers the normal exit: the shell exits while its
// children live on; Wait kills them after the drain grace.
func TestWaitKillsLeftovers(t *testing.T) {
	old := drainGrace
	drainGrace = 20 * time.Millisecond
	t.Cleanup(func() { drainGrace = old })
	for _, m := range modes(t) {
		for _, tc := range trees {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				// The tree's last command becomes a background one, so the shell exits.
				cmd := strings.TrimSuffix(tc.command, "sleep 1000") + "sleep 1000 & sleep 0.2; exit 7"
				var out syncBuf
				g := startT(t, Spec{Command: cmd, Dir: t.TempDir(), Stdout: &out, noCgroup: m.noCgroup})
				st, err := g.Wait()
				require.NoError(t, err)
				require.Equal(t, Status{ExitCode: 7}, st)
				require.Empty(t, cookieHolders(g.Cookie()))
			})
		}
	}
}

func TestStdinAndOutput(t *testing.T) {
	in := "hello\nworld\n"
	tests := []struct {
		name       string
		command    string
		stdin      *string
		wantOut    string
		wantErr    string
		wantStatus Status
	}{
		{"cat without stdin returns at once", "cat", nil, "", "", Status{ExitCode: 0}},
		{"cat with stdin", "cat", &in, in, "", Status{ExitCode: 0}},
		{"stderr apart", "echo out; echo err >&2; exit 3", nil, "out\n", "err\n", Status{ExitCode: 3}},
		{"signal", "kill -TERM $$", nil, "", "", Status{ExitCode: -1, Signal: "SIGTERM"}},
		{"env added", `echo "$EXTRA"`, nil, "x\n", "", Status{ExitCode: 0}},
		{"stdin not read", "exit 0", func() *string { s := strings.Repeat("x", 4<<20); return &s }(), "", "", Status{ExitCode: 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb syncBuf
			g := startT(t, Spec{Command: tc.command, Dir: t.TempDir(), Env: []string{"EXTRA=x"}, Stdin: tc.stdin, Stdout: &out, Stderr: &errb})
			st, err := g.Wait()
			require.NoError(t, err)
			require.Equal(t, tc.wantStatus, st)
			require.Equal(t, tc.wantOut, out.String())
			require.Equal(t, tc.wantErr, errb.String())
		})
	}
}

func TestConcurrentCallsKeepTheirOutput(t *testing.T) {
	const calls = 20
	var wg sync.WaitGroup
	outs := make([]syncBuf, calls)
	errs := make([]error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := fmt.Sprintf("for j in 1 2 3 4 5; do echo call%d-$j; sleep 0.0%d; done", i, i%10)
			g, err := Start(Spec{Command: cmd, Dir: t.TempDir(), Stdout: &outs[i]})
			if err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = g.Wait()
		}()
	}
	wg.Wait()
	for i := range calls {
		require.NoError(t, errs[i])
		want := ""
		for j := 1; j <= 5; j++ {
			want += fmt.Sprintf("call%d-%d\n", i, j)
		}
		require.Equal(t, want, outs[i].String())
	}
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		name string
		line string
		want procStat
		ok   bool
	}{
		{"plain", "42 (sleep) S 1 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 777 1 1", procStat{pid: 42, ppid: 1, pgrp: 42, state: 'S', start: 777}, true},
		{"name with paren and spaces", "7 (a) b (c) Z 3 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12 0 0", procStat{pid: 7, ppid: 3, pgrp: 9, state: 'Z', start: 12}, true},
		{"short", "7 (a) S 3", procStat{}, false},
		{"no paren", "7 a S 3 9 9", procStat{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseStat(tc.want.pid, []byte(tc.line))
			require.Equal(t, tc.ok, ok)
			if tc.ok {
				require.Equal(t, tc.want, got)
			}
		})
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (sleep) S 1 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 777 1 1"))
	f.Add([]byte("7 (a) b (c) Z 3 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12 0 0"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, ok := parseStat(1, b)
		if !ok {
			return
		}
		if st.pid != 1 {
			t.Fatalf("pid %d", st.pid)
		}
	})
}

func BenchmarkKillTree50(b *testing.B) {
	cmd := "for i in $(seq 16); do setsid sleep 1000 & (sleep 1000 &); sleep 1000 & done; setsid sleep 1000 & sleep 1000"
	var kill, wait time.Duration
	for b.Loop() {
		b.StopTimer()
		g := startT(b, Spec{Command: cmd, Dir: b.TempDir()})
		require.Eventually(b, func() bool { return len(cookieHolders(g.Cookie())) >= 50 }, 10*time.Second, time.Millisecond)
		b.StartTimer()
		t0 := time.Now()
		g.Kill()
		t1 := time.Now()
		_, _ = g.Wait()
		kill += t1.Sub(t0)
		wait += time.Since(t1)
		b.StopTimer()
		require.Empty(b, cookieHolders(g.Cookie()))
		b.StartTimer()
	}
	b.ReportMetric(float64(kill.Microseconds())/1000/float64(b.N), "kill-ms/op")
	b.ReportMetric(float64(wait.Microseconds())/1000/float64(b.N), "wait-ms/op")
}

// TestStartContextCancelled: a context done before the spawn fails the start
// with its error, and the command never runs.
func TestStartContextCancelled(t *testing.T) {
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := StartContext(ctx, Spec{Command: "echo x > ran", Dir: dir, noCgroup: m.noCgroup})
			require.ErrorIs(t, err, context.Canceled)
			_, statErr := os.Stat(filepath.Join(dir, "ran"))
			require.True(t, os.IsNotExist(statErr), "the command ran")
		})
	}
}
