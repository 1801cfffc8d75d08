package conformance

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pollTick is the pause between looks at /proc while waiting for the server
// to settle; it is not a speed assertion.
var pollTick = 20 * time.Millisecond

func sleepTick() { time.Sleep(pollTick) }

// settleBackstop bounds the wait for fds and processes to go away, so a leak
// fails the test instead of hanging it.
var settleBackstop = 30 * time.Second

// procStatus returns the value of field (e.g. "VmHWM") in /proc/<pid>/status.
func procStatus(t testing.TB, pid int, field string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return ""
}

// vmHWMKB is the peak resident set of pid in kB.
func vmHWMKB(t testing.TB, pid int) int64 {
	t.Helper()
	f := strings.Fields(procStatus(t, pid, "VmHWM"))
	n, err := strconv.ParseInt(f[0], 10, 64)
	require.NoError(t, err)
	return n
}

// fdTargets lists what each open file descriptor of pid points to.
func fdTargets(t testing.TB, pid int) []string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		l, _ := os.Readlink(filepath.Join(dir, e.Name()))
		out = append(out, e.Name()+"->"+l)
	}
	return out
}

// proc is one line of a /proc scan.
type proc struct {
	pid, ppid int
	state     string
	cmdline   string
}

// procsWhere lists the live or zombie processes for which keep is true; keep
// gets the pid's stat fields and its environment.
func procsWhere(keep func(p proc, environ []byte) bool) []proc {
	ents, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		p := proc{pid: pid, ppid: ppid, state: f[0], cmdline: strings.ReplaceAll(string(cmd), "\x00", " ")}
		if keep(p, env) {
			out = append(out, p)
		}
	}
	return out
}

// childrenOf lists the processes whose parent is pid (zombies included).
func childrenOf(pid int) []proc {
	return procsWhere(func(p proc, _ []byte) bool { return p.ppid == pid })
}

// marked lists the processes whose environment holds the entry kv ("K=V").
func marked(kv string) []proc {
	needle := []byte("\x00" + kv + "\x00")
	return procsWhere(func(p proc, env []byte) bool {
		return bytes.Contains(append(append([]byte{0}, env...), 0), needle)
	})
}

// eventually polls cond until it holds or the backstop passes.
func eventually(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(settleBackstop)
	for {
		ok, detail := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %v: %s", what, settleBackstop, detail)
		}
		sleepTick()
	}
}

func loadMark(t testing.TB) string {
	t.Helper()
	b := make([]byte, 8)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return "TOOLRPC_HARDEN_MARK=" + hex.EncodeToString(b)
}

// loadBudget bounds the whole mixed load: issue 10 asks for under a minute on
// two cores. It is a backstop against a wedged server, not a benchmark.
var loadBudget = 60 * time.Second

// TestLoad_MixedConcurrentCalls runs 64 concurrent calls — streaming bash
// with detached children, grep and glob over the Go tree, windowed reads of a
// large file — cancelling about a third of them at random moments, then checks
// that the server is back to its baseline: fds, no child or zombie, no process
// of any call alive, bounded peak RSS.
//
// Checks SPEC §1, §6.
func TestLoad_MixedConcurrentCalls(t *testing.T) {
	goroot := runtime.GOROOT()
	if _, err := os.Stat(filepath.Join(goroot, "src")); err != nil {
		t.Skipf("no Go tree at %s to grep", goroot)
	}
	root := t.TempDir()
	var big bytes.Buffer
	for i := 1; big.Len() < 24<<20; i++ {
		fmt.Fprintf(&big, "%07d the quick brown fox jumps over the lazy dog %s\n", i, strings.Repeat("é", i%50))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "big.txt"), big.Bytes(), 0o644))
	mark := loadMark(t)
	s := start(t, withRoot(root), withExternalRoots(goroot))
	s.call(t, "tools/read", map[string]any{"path": "big.txt", "limit": 1})
	baseTargets := fdTargets(t, s.pid())
	baseFDs := len(baseTargets)

	type req struct {
		method string
		params map[string]any
	}
	mkReq := func(i int) req {
		switch i % 5 {
		case 0:
			return req{"tools/bash", map[string]any{
				"command":       `setsid sleep 300 & for i in $(seq 1 30000); do echo "out $i"; echo "err $i" >&2; done; sleep 0.$((RANDOM % 5))`,
				"env":           map[string]string{strings.SplitN(mark, "=", 2)[0]: strings.SplitN(mark, "=", 2)[1]},
				"workDoneToken": "load-" + strconv.Itoa(i),
			}}
		case 1:
			return req{"tools/grep", map[string]any{"pattern": `func \w+\(ctx context\.Context`, "path": filepath.Join(goroot, "src"), "outputMode": "content", "headLimit": 100 + i}}
		case 2:
			return req{"tools/glob", map[string]any{"pattern": "**/*_test.go", "path": filepath.Join(goroot, "src"), "limit": 1000}}
		default:
			return req{"tools/read", map[string]any{"path": "big.txt", "offset": 1 + i*7919%300000, "limit": 4000}}
		}
	}
	const n = 64
	began := time.Now()
	ids := make([]json.RawMessage, n)
	cancelled := map[int]bool{}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		r := mkReq(i)
		ids[i] = s.send(t, r.method, r.params)
		if i%3 == 0 {
			cancelled[i] = true
			wg.Add(1)
			go func(id json.RawMessage, d time.Duration) {
				defer wg.Done()
				time.Sleep(d)
				s.notify(t, "$/cancelRequest", map[string]any{"id": id})
			}(ids[i], time.Duration(i*37%400)*time.Millisecond)
		}
	}
	counts := map[string]int{}
	for i, id := range ids {
		f := s.waitTimeout(id, time.Until(began.Add(loadBudget)))
		require.NotNil(t, f, "call %d (%s) not answered within %v", i, mkReq(i).method, loadBudget)
		if f.Error == nil {
			counts["ok"]++
			continue
		}
		require.Equal(t, int64(-32800), f.Error.Code, "call %d %s: %v", i, mkReq(i).method, f.Error)
		require.True(t, cancelled[i], "call %d was cancelled without a $/cancelRequest", i)
		counts["cancelled"]++
	}
	wg.Wait()
	elapsed := time.Since(began)

	// No chunk of a call after its reply.
	replied := map[string]bool{}
	for _, f := range s.frames() {
		if f.Method == "" {
			replied[compact(f.ID)] = true
		}
		if f.Method == "$/progress" {
			var p struct {
				Token string `json:"token"`
			}
			require.NoError(t, json.Unmarshal(f.Params, &p))
			k, err := strconv.Atoi(strings.TrimPrefix(p.Token, "load-"))
			require.NoError(t, err)
			require.False(t, replied[compact(ids[k])], "progress for call %d after its reply", k)
		}
	}

	pid := s.pid()
	eventually(t, "no process of any call alive", func() (bool, string) {
		left := marked(mark)
		return len(left) == 0, fmt.Sprint(left)
	})
	eventually(t, "no child or zombie of the server but its guardian", func() (bool, string) {
		var c []proc
		for _, p := range childrenOf(pid) {
			if !strings.Contains(p.cmdline, guardianArg) {
				c = append(c, p)
			}
		}
		return len(c) == 0, fmt.Sprint(c)
	})
	eventually(t, "fd count back to baseline", func() (bool, string) {
		// The session's scratch lock opens with the first spill and lives
		// as long as the session (SPEC §7), and so does the watch of the
		// mount table, open while the session's confined sandbox thread
		// lives (SPEC §14): not leaks.
		got := 0
		for _, f := range fdTargets(t, pid) {
			if !strings.HasSuffix(f, filepath.Join(s.SessionID, ".lock")) && !strings.HasSuffix(f, "/mounts") {
				got++
			}
		}
		return got <= baseFDs, fmt.Sprintf("baseline %v, now %v", baseTargets, fdTargets(t, pid))
	})
	hwm := vmHWMKB(t, pid)
	threads := procStatus(t, pid, "Threads")
	t.Logf("64 mixed calls in %v: %v; baseline fds %d; peak RSS %d kB; threads %s", elapsed.Round(time.Millisecond), counts, baseFDs, hwm, threads)
	require.Less(t, hwm, int64(768*1024), "peak RSS")
	// Still serving.
	r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "big.txt", "limit": 1}))
	require.Equal(t, 1, r.LineCount)
}
