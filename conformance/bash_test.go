package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// bashInfo mirrors StreamInfo of SPEC §6.
type bashInfo struct {
	Bytes        int     `json:"bytes"`
	Lines        int     `json:"lines"`
	Truncated    bool    `json:"truncated"`
	OmittedBytes int     `json:"omittedBytes"`
	OmittedLines int     `json:"omittedLines"`
	Spill        *string `json:"spill"`
	Chunks       int     `json:"chunks"`
}

// bashRes mirrors BashResult of SPEC §6.
type bashRes struct {
	ExitCode   *int     `json:"exitCode"`
	Signal     string   `json:"signal"`
	Stdout     string   `json:"stdout"`
	Stderr     string   `json:"stderr"`
	Truncated  bool     `json:"truncated"`
	StdoutInfo bashInfo `json:"stdoutInfo"`
	StderrInfo bashInfo `json:"stderrInfo"`
	DurationMs *int64   `json:"durationMs"`
}

// bashChunk mirrors the value of a $/progress notification of tools/bash.
type bashChunk struct {
	Stream       string `json:"stream"`
	Seq          int    `json:"seq"`
	Data         string `json:"data"`
	SkippedBytes int64  `json:"skippedBytes"`
}

func callBash(t *testing.T, s *server, params map[string]any) bashRes {
	t.Helper()
	return decode[bashRes](t, s.call(t, "tools/bash", params))
}

// seqOutput is what `seq n` prints.
func seqOutput(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.String()
}

// markHolders returns the live (non-zombie) processes whose environment holds
// TESTMARK=mark.
func markHolders(mark string) []int {
	kv := []byte("TESTMARK=" + mark + "\x00")
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		if bytes.HasPrefix(env, kv) || bytes.Contains(env, append([]byte{0}, kv...)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func newMark(t *testing.T) string {
	return fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), time.Now().UnixNano())
}

// chunksOf decodes the progress values of token per stream, in arrival order.
func chunksOf(t *testing.T, s *server, token json.RawMessage) map[string][]bashChunk {
	t.Helper()
	out := map[string][]bashChunk{}
	for _, v := range s.progress(token) {
		c := decode[bashChunk](t, v)
		out[c.Stream] = append(out[c.Stream], c)
	}
	return out
}

// requireSeqs checks seq runs 0..n-1 and returns the concatenated data.
func requireSeqs(t *testing.T, cs []bashChunk) string {
	t.Helper()
	var b strings.Builder
	for i, c := range cs {
		require.Equal(t, i, c.Seq, "seq values are contiguous from 0")
		require.True(t, utf8.ValidString(c.Data))
		b.WriteString(c.Data)
	}
	return b.String()
}

const savedTo = ` — Grep it, or Read it with offset/limit\.\]`

// TestCriterion01_BashOversizeSpilled checks SPEC §6.2, §6.3 (§11 criterion 1):
// oversized stdout is cut with the head marker and spilled.
func TestCriterion01_BashOversizeSpilled(t *testing.T) {
	s := start(t)
	res := callBash(t, s, map[string]any{"command": "seq 100000"})
	full := seqOutput(1, 100000)
	// seq 100000 prints 588,895 bytes: the 512 KB copy ends after line 89232.
	re := regexp.MustCompile(`(?s)^(.*\n)\[truncated: kept the first 4000 of 100000 lines; limit 4000 lines / 96KB\. Full output saved to (\S+)` +
		` — Grep it, or Read it with offset/limit\. The saved copy holds lines 1–89232 of 100000 \(spill limit 512KB\)\.\]` + "\n$")
	m := re.FindStringSubmatch(res.Stdout)
	require.NotNil(t, m, "stdout ends with the head-cut marker: %q", tail(res.Stdout, 300))
	require.Equal(t, seqOutput(1, 4000), m[1])
	require.True(t, res.Truncated)
	require.True(t, res.StdoutInfo.Truncated)
	require.NotNil(t, res.StdoutInfo.Spill)
	require.Equal(t, *res.StdoutInfo.Spill, m[2])
	require.Regexp(t, `^`+regexp.QuoteMeta(filepath.Join(s.ScratchDir, "tool-output"))+`/bash-stdout-\d+-\d+\.log$`, m[2])

	spilled, err := os.ReadFile(m[2])
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(full, string(spilled)), "the spill file holds the captured prefix")
	require.Greater(t, len(spilled), len(m[1]), "the spill copy is more complete than the excerpt")
	require.Equal(t, len(full)-len(spilled), res.StdoutInfo.OmittedBytes)
	fi, err := os.Stat(m[2])
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// The spill file is readable through tools/read (scratch root).
	read := decode[struct {
		Root string `json:"root"`
	}](t, s.call(t, "tools/read", map[string]any{"path": m[2], "offset": 4001, "limit": 10}))
	require.Equal(t, "scratch", read.Root)

	// A call within budget spills nothing and creates no scratch dir.
	s2 := start(t)
	small := callBash(t, s2, map[string]any{"command": "seq 10"})
	require.Equal(t, seqOutput(1, 10), small.Stdout)
	require.False(t, small.Truncated)
	require.Nil(t, small.StdoutInfo.Spill)
	_, err = os.Stat(s2.ScratchDir)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestCriterion02_BashStderrKeepsTail checks SPEC §6.1, §6.2 (§11 criterion 2):
// cut stderr keeps its last lines behind the tail marker.
func TestCriterion02_BashStderrKeepsTail(t *testing.T) {
	s := start(t)
	res := callBash(t, s, map[string]any{"command": "echo out; seq 10000 >&2"})
	re := regexp.MustCompile(`(?s)^\[truncated: kept the last 4000 of 10000 lines; limit 4000 lines / 96KB\. Full output saved to (\S+)` + savedTo + "\n(.*)$")
	m := re.FindStringSubmatch(res.Stderr)
	require.NotNil(t, m, "stderr starts with the tail-cut marker: %q", res.Stderr[:min(300, len(res.Stderr))])
	require.Equal(t, seqOutput(6001, 10000), m[2])
	require.Equal(t, "out\n", res.Stdout)
	require.False(t, res.StdoutInfo.Truncated)
	require.True(t, res.StderrInfo.Truncated)
	require.Regexp(t, `/tool-output/bash-stderr-\d+-\d+\.log$`, m[1])
	spilled, err := os.ReadFile(m[1])
	require.NoError(t, err)
	require.Equal(t, seqOutput(1, 10000), string(spilled))

	// Without a cut there is no marker.
	res = callBash(t, s, map[string]any{"command": "seq 3 >&2"})
	require.Equal(t, "1\n2\n3\n", res.Stderr)
}

// TestCriterion09_BashValidUTF8 checks SPEC §6.2 (§11 criterion 9): cut bash
// output is valid UTF-8.
func TestCriterion09_BashValidUTF8(t *testing.T) {
	s := start(t)
	tests := []struct {
		name       string
		command    string
		wantStdout *regexp.Regexp // group 1, if any, is the kept text
		wantStderr *regexp.Regexp
		wantKept   int // bytes of the kept text, checked when set
	}{
		{"invalid bytes", `printf 'a\377b\n'; printf 'c\300\n' >&2`,
			regexp.MustCompile("^a\uFFFDb\n$"), regexp.MustCompile("^c\uFFFD\n$"), 0},
		{"multibyte at the head cut", `printf a; yes é | head -n 60000 | tr -d '\n'`,
			regexp.MustCompile(`^(aé+)\n\[truncated: no complete line fits the 96KB limit; kept 98303 bytes of a single 120001-byte line\. Full output saved to \S+` + savedTo + "\n$"), nil, 98303},
		{"multibyte at the tail cut", `{ yes é | head -n 60000 | tr -d '\n'; printf 'z\n'; } >&2`,
			nil, regexp.MustCompile(`^\[truncated: no complete line fits the 96KB limit; kept 98303 bytes of a single 120001-byte line\. Full output saved to \S+` + savedTo + "\n(é+z)$"), 98303},
		{"4.2 MB single line", `head -c 4200000 /dev/zero | tr '\0' a`,
			regexp.MustCompile(`^(a+)\n\[truncated: no complete line fits the 96KB limit; kept 98304 bytes of a single 4200000-byte line\. Full output saved to \S+` +
				` — Grep it, or Read it with offset/limit\. The saved copy holds the first 524288 bytes of line 1 \(spill limit 512KB\)\.\]` + "\n$"), nil, 98304},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			token := fmt.Sprintf("utf8-%d", i)
			res := callBash(t, s, map[string]any{"command": tc.command, "workDoneToken": token})
			require.True(t, utf8.ValidString(res.Stdout))
			require.True(t, utf8.ValidString(res.Stderr))
			for _, w := range []struct {
				re  *regexp.Regexp
				got string
			}{{tc.wantStdout, res.Stdout}, {tc.wantStderr, res.Stderr}} {
				if w.re == nil {
					continue
				}
				m := w.re.FindStringSubmatch(w.got)
				require.NotNil(t, m, "%q does not match %s", tail(w.got, 300), tail(w.re.String(), 300))
				if tc.wantKept > 0 {
					require.Len(t, m[1], tc.wantKept)
				}
			}
			tok, _ := json.Marshal(token)
			for _, cs := range chunksOf(t, s, tok) {
				requireSeqs(t, cs)
			}
		})
	}
}

// TestCriterion10_CaptureCapAboveBudget checks SPEC §6.1 (§11 criterion 10):
// the spill copy holds more than the excerpt and omitted bytes and lines are
// counted.
func TestCriterion10_CaptureCapAboveBudget(t *testing.T) {
	s := start(t)
	capBytes := 512 * 1024
	tests := []struct {
		name      string
		command   string
		stream    func(r bashRes) bashInfo
		full      string
		wantLines int // lines the capture retains
	}{
		// Byte cap: 300,000 numbers are ~2 MB; the head keeps whole lines within 512 KB.
		{"stdout byte cap", "seq 300000", func(r bashRes) bashInfo { return r.StdoutInfo }, seqOutput(1, 300000), 0},
		// Line cap: 300,000 two-byte lines are 600,000 bytes; 200,000 lines are kept.
		{"stdout line cap", "yes | head -n 300000", func(r bashRes) bashInfo { return r.StdoutInfo }, strings.Repeat("y\n", 300000), 200000},
		{"stderr byte cap", "seq 300000 >&2", func(r bashRes) bashInfo { return r.StderrInfo }, seqOutput(1, 300000), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := callBash(t, s, map[string]any{"command": tc.command})
			info := tc.stream(res)
			var kept string
			if strings.HasPrefix(tc.name, "stderr") {
				kept = tc.full[len(tc.full)-capBytes:]
				kept = kept[strings.IndexByte(kept, '\n')+1:]
			} else {
				kept = tc.full[:capBytes]
				kept = kept[:strings.LastIndexByte(kept, '\n')+1]
				if tc.wantLines > 0 {
					kept = tc.full[:2*tc.wantLines]
				}
			}
			keptLines := strings.Count(kept, "\n")
			require.Equal(t, len(tc.full), info.Bytes)
			require.Equal(t, 300000, info.Lines)
			require.True(t, info.Truncated)
			require.Equal(t, len(tc.full)-len(kept), info.OmittedBytes)
			require.Equal(t, 300000-keptLines, info.OmittedLines)
			require.NotNil(t, info.Spill)
			spilled, err := os.ReadFile(*info.Spill)
			require.NoError(t, err)
			require.Equal(t, kept, string(spilled))
			require.Greater(t, len(spilled), 96*1024, "the capture cap is above the result budget")
		})
	}
}

// TestCriterion11_BashStreamsWithSeq checks SPEC §6.4 (§11 criterion 11): each
// stream is streamed with its own seq 0..n-1.
func TestCriterion11_BashStreamsWithSeq(t *testing.T) {
	s := start(t)
	cmd := `for i in $(seq 1 30); do echo out$i; echo err$i >&2; sleep 0.005; done; seq 1 20000; seq 1 3000 >&2`
	var wantOut, wantErr strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&wantOut, "out%d\n", i)
		fmt.Fprintf(&wantErr, "err%d\n", i)
	}
	wantOut.WriteString(seqOutput(1, 20000))
	wantErr.WriteString(seqOutput(1, 3000))
	tests := []struct {
		name  string
		token any // nil: the request id is the token
	}{
		{"string token", "tok-11"},
		{"number token", 1100},
		{"request id", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"command": cmd}
			if tc.token != nil {
				params["workDoneToken"] = tc.token
			}
			id := s.send(t, "tools/bash", params)
			reply := s.wait(t, id)
			require.Nil(t, reply.Error)
			res := decode[bashRes](t, reply.Result)
			token := id
			if tc.token != nil {
				token, _ = json.Marshal(tc.token)
			}
			cs := chunksOf(t, s, token)
			require.Equal(t, wantOut.String(), requireSeqs(t, cs["stdout"]))
			require.Equal(t, wantErr.String(), requireSeqs(t, cs["stderr"]))
			require.Equal(t, len(cs["stdout"]), res.StdoutInfo.Chunks)
			require.Equal(t, len(cs["stderr"]), res.StderrInfo.Chunks)
			require.Greater(t, res.StdoutInfo.Chunks, 1)
			requireNoProgressAfterReply(t, s, token, id)
		})
	}
}

// requireNoProgressAfterReply checks that no $/progress of token follows the
// reply to id, after giving a late bashChunk time to show up.
func requireNoProgressAfterReply(t *testing.T, s *server, token, id json.RawMessage) {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
	replied := false
	for _, f := range s.frames() {
		if f.Method == "" && compact(f.ID) == compact(id) {
			replied = true
			continue
		}
		if replied && f.Method == "$/progress" {
			var p struct {
				Token json.RawMessage `json:"token"`
			}
			require.NoError(t, json.Unmarshal(f.Params, &p))
			require.NotEqual(t, compact(token), compact(p.Token), "a bashChunk followed the reply")
		}
	}
	require.True(t, replied)
}

// TestCriterion12_BashTimeoutDefaultAndRange checks SPEC §2, §6.5 (§11
// criterion 12): the 60 s default timeout and the 1..21600 s range.
func TestCriterion12_BashTimeoutDefaultAndRange(t *testing.T) {
	s := start(t)
	var init struct {
		Limits map[string]int64 `json:"limits"`
	}
	require.NoError(t, json.Unmarshal(s.InitResult, &init))
	require.Equal(t, int64(60), init.Limits["BASH_DEFAULT_TIMEOUT_S"])
	require.Equal(t, int64(1), init.Limits["BASH_MIN_TIMEOUT_S"])
	require.Equal(t, int64(21600), init.Limits["BASH_MAX_TIMEOUT_S"])
	tools := decode[[]struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}](t, s.call(t, "tools/list", nil))
	found := false
	for _, tool := range tools {
		if tool.Name == "tools/bash" {
			found = true
			require.Contains(t, tool.Description, "default 60, allowed 1..21600")
			timeout := decode[struct {
				Properties map[string]struct {
					Minimum, Maximum, Default float64
				}
			}](t, tool.InputSchema).Properties["timeout"]
			require.Equal(t, [3]float64{1, 21600, 60}, [3]float64{timeout.Minimum, timeout.Maximum, timeout.Default}, "timeout's range and default")
		}
	}
	require.True(t, found)

	for _, bad := range []any{0, 0.5, 21601, -1, "60", 30000} {
		t.Run(fmt.Sprintf("reject %v", bad), func(t *testing.T) {
			e := s.callErr(t, "tools/bash", map[string]any{"command": "true", "timeout": bad})
			require.Equal(t, int64(-32602), e.Code)
			require.Equal(t, "INVALID_ARGUMENT", e.Kind)
		})
	}
	for _, ok := range []any{1, 1.5, 21600} {
		t.Run(fmt.Sprintf("accept %v", ok), func(t *testing.T) {
			res := callBash(t, s, map[string]any{"command": "echo ok", "timeout": ok})
			require.Equal(t, "ok\n", res.Stdout)
			require.Equal(t, 0, *res.ExitCode)
		})
	}
	t.Run("timeout kills the tree with partial data", func(t *testing.T) {
		mark := newMark(t)
		e := s.callErr(t, "tools/bash", map[string]any{
			"command": "echo partial; echo warn >&2; setsid sleep 1000 & (sleep 1000 &); sleep 1000",
			"timeout": 1, "env": map[string]string{"TESTMARK": mark},
		})
		require.Equal(t, int64(-32001), e.Code)
		require.Equal(t, "TIMEOUT", e.Kind)
		data := decode[bashRes](t, e.Data)
		require.Equal(t, "partial\n", data.Stdout)
		require.Equal(t, "warn\n", data.Stderr)
		require.Nil(t, data.ExitCode)
		require.Equal(t, "SIGKILL", data.Signal)
		require.Empty(t, markHolders(mark))
	})
}

// TestCriterion13_AbortKillsTree checks SPEC §6.6 (§11 criterion 13): a timeout
// or cancel kills the whole tree and no chunk follows the reply.
func TestCriterion13_AbortKillsTree(t *testing.T) {
	// Both kill paths: a per-call cgroup where cgroup v2 is writable, and the
	// process group plus /proc sweep (forced with TOOLRPC_KILL_MODE=sweep).
	for _, mode := range []string{"default", "sweep"} {
		t.Run(mode, func(t *testing.T) {
			s := start(t, withEnv("TOOLRPC_KILL_MODE="+mode))
			abortTrees(t, s)
		})
	}
}

func abortTrees(t *testing.T, s *server) {
	trees := []struct {
		name    string
		command string
		procs   int
	}{
		{"background", "sleep 1000 &", 1},
		{"setsid", "setsid sleep 1000 &", 1},
		{"double fork", "(sleep 1000 &);", 1},
		{"setsid spawning loop", "(while :; do setsid sleep 1000 & sleep 0.005; done) &", 4},
		{"closes stdout early", "sleep 1000 >&- 2>&- &", 1},
		{"ignores SIGTERM", "(trap '' TERM; setsid sleep 1000 & sleep 1000) &", 3},
	}
	for _, tc := range trees {
		t.Run(tc.name, func(t *testing.T) {
			mark := newMark(t)
			token := "abort-" + mark
			id := s.send(t, "tools/bash", map[string]any{
				"command":       tc.command + " echo started; while :; do echo tick; sleep 0.01; done",
				"env":           map[string]string{"TESTMARK": mark},
				"workDoneToken": token,
			})
			require.Eventually(t, func() bool { return len(markHolders(mark)) >= tc.procs+1 }, time.Minute, 5*time.Millisecond)
			// The loop has printed a tick: a loaded machine could otherwise
			// cancel between "started" and the first one (CI, load 12).
			require.Eventually(t, func() bool { return strings.HasPrefix(streamedStdout(s, bashToken(token)), "started\ntick\n") }, time.Minute, 5*time.Millisecond)
			s.notify(t, "$/cancelRequest", map[string]any{"id": id})
			reply := s.wait(t, id)
			require.Empty(t, markHolders(mark), "no process of the call survives the reply")
			require.NotNil(t, reply.Error)
			require.Equal(t, int64(-32800), reply.Error.Code)
			require.Equal(t, "CANCELLED", reply.Error.Kind)
			data := decode[bashRes](t, reply.Error.Data)
			require.True(t, strings.HasPrefix(data.Stdout, "started\ntick\n"), data.Stdout)
			require.Equal(t, "SIGKILL", data.Signal)
			cs := chunksOf(t, s, bashToken(token))
			require.Equal(t, data.Stdout, requireSeqs(t, cs["stdout"]), "every bashChunk precedes the reply")
			requireNoProgressAfterReply(t, s, bashToken(token), id)
		})
	}
}

// streamedStdout is the stdout the bashChunks of token carried so far, in
// the order they came (a chunk that does not decode is left out).
func streamedStdout(s *server, token json.RawMessage) string {
	var b strings.Builder
	for _, v := range s.progress(token) {
		var c bashChunk
		if json.Unmarshal(v, &c) == nil && c.Stream == "stdout" {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

func bashToken(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// TestBash_ShutdownKillsRunningTrees checks SPEC §1, §6.6: shutdown kills the
// trees of running calls.
func TestBash_ShutdownKillsRunningTrees(t *testing.T) {
	s := start(t)
	mark := newMark(t)
	id := s.send(t, "tools/bash", map[string]any{
		"command": "setsid sleep 1000 & (sleep 1000 &); sleep 1000", "env": map[string]string{"TESTMARK": mark},
	})
	require.Eventually(t, func() bool { return len(markHolders(mark)) >= 3 }, time.Minute, 5*time.Millisecond)
	s.stop(t)
	reply := s.wait(t, id)
	require.NotNil(t, reply.Error)
	require.Equal(t, "CANCELLED", reply.Error.Kind)
	require.Empty(t, markHolders(mark))
}

// TestBash_NormalExitKillsLeftovers checks SPEC §6.6: descendants still holding
// the pipes die once the shell exits.
func TestBash_NormalExitKillsLeftovers(t *testing.T) {
	s := start(t)
	mark := newMark(t)
	res := callBash(t, s, map[string]any{
		"command": "setsid sleep 1000 & (sleep 1000 &); sleep 1000 >/dev/null 2>&1 & echo done",
		"env":     map[string]string{"TESTMARK": mark},
	})
	require.Equal(t, "done\n", res.Stdout)
	require.Equal(t, 0, *res.ExitCode)
	require.Empty(t, markHolders(mark), "a call's processes never outlive it")
}

// TestBash_StdinCwdEnv checks SPEC §6: stdin, cwd and env params reach the
// command.
func TestBash_StdinCwdEnv(t *testing.T) {
	s := start(t)
	require.NoError(t, os.Mkdir(filepath.Join(s.Root, "sub"), 0o755))
	outside := t.TempDir()
	tests := []struct {
		name     string
		params   map[string]any
		want     string
		wantKind string
	}{
		{"cat without stdin returns at once", map[string]any{"command": "cat"}, "", ""},
		{"stdin", map[string]any{"command": "cat", "stdin": "a\nb\n"}, "a\nb\n", ""},
		{"cwd relative", map[string]any{"command": "basename $PWD", "cwd": "sub"}, "sub\n", ""},
		{"env and pager", map[string]any{"command": `echo "$FOO $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"`, "env": map[string]string{"FOO": "bar"}}, "bar cat cat 0\n", ""},
		{"cwd outside", map[string]any{"command": "true", "cwd": outside}, "", "PERMISSION_DENIED"},
		{"cwd missing", map[string]any{"command": "true", "cwd": "nope"}, "", "NOT_FOUND"},
		{"command missing", map[string]any{"cwd": "sub"}, "", "INVALID_ARGUMENT"},
		{"bad token", map[string]any{"command": "true", "workDoneToken": []int{1}}, "", "INVALID_ARGUMENT"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.wantKind != "" {
				require.Equal(t, tc.wantKind, s.callErr(t, "tools/bash", tc.params).Kind)
				return
			}
			res := callBash(t, s, tc.params)
			require.Equal(t, tc.want, res.Stdout)
			require.Equal(t, 0, *res.ExitCode)
		})
	}
}

// TestBash_ConcurrentCallsKeepTheirOutput checks SPEC §1, §6: concurrent bash
// calls each get their own output, streams and spill files.
func TestBash_ConcurrentCallsKeepTheirOutput(t *testing.T) {
	s := start(t)
	const calls = 20
	ids := make([]json.RawMessage, calls)
	var mu sync.Mutex
	for i := range calls {
		mu.Lock()
		ids[i] = s.send(t, "tools/bash", map[string]any{
			"command": fmt.Sprintf("for j in 1 2 3; do echo call%d-$j; echo e%d >&2; sleep 0.0%d; done", i, i, i%10),
		})
		mu.Unlock()
	}
	for i := range calls {
		reply := s.wait(t, ids[i])
		require.Nil(t, reply.Error)
		res := decode[bashRes](t, reply.Result)
		require.Equal(t, fmt.Sprintf("call%d-1\ncall%d-2\ncall%d-3\n", i, i, i), res.Stdout)
		require.Equal(t, strings.Repeat(fmt.Sprintf("e%d\n", i), 3), res.Stderr)
		cs := chunksOf(t, s, ids[i])
		require.Equal(t, res.Stdout, requireSeqs(t, cs["stdout"]))
	}
}

// TestBash_SpillDirsAcrossServers checks SPEC §6.3, §7: spill files live in
// their session's scratch dir, which outlives neither its session nor a sweep.
func TestBash_SpillDirsAcrossServers(t *testing.T) {
	data := t.TempDir()
	a := start(t, withDataDir(data), withSessionID("a"))
	ra := callBash(t, a, map[string]any{"command": "seq 10000"})
	require.NotNil(t, ra.StdoutInfo.Spill)

	b := start(t, withDataDir(data), withSessionID("b"))
	rb := callBash(t, b, map[string]any{"command": "seq 10000"})
	require.NotNil(t, rb.StdoutInfo.Spill)
	require.FileExists(t, *ra.StdoutInfo.Spill, "a live server's spills survive another's start-up")

	require.NoError(t, signalPid(a.pid(), syscall.SIGKILL)) // a crashes
	a.waitExit(t)
	start(t, withDataDir(data), withSessionID("c"))
	require.NoDirExists(t, a.ScratchDir, "a crashed server's dir is swept by the next")
	require.FileExists(t, *rb.StdoutInfo.Spill)

	b.stop(t)
	require.NoDirExists(t, b.ScratchDir, "shutdown removes the session's scratch dir")

	d := start(t, withDataDir(data), withSessionID("d"))
	rd := callBash(t, d, map[string]any{"command": "seq 10000"})
	require.NoError(t, signalPid(d.pid(), syscall.SIGKILL))
	d.waitExit(t)
	start(t, withDataDir(data), withSessionID("d"))
	require.FileExists(t, *rd.StdoutInfo.Spill, "a restarted server with the same sessionId keeps its dir")
	start(t, withDataDir(data), withSessionID("e"))
	require.FileExists(t, *rd.StdoutInfo.Spill, "the restarted server holds the lock again")
}

// BenchmarkBashPipeline1GB runs a 1 GB pipeline through tools/bash and, in the
// same iteration, the same pipeline into /dev/null, and reports the ratio and
// the server's peak RSS (VmHWM). Run with -benchtime=1x.
func BenchmarkBashPipeline1GB(b *testing.B) {
	const pipeline = `head -c 1000000000 /dev/zero | tr '\0' a | fold -w 100`
	s := start(b)
	var direct, tool time.Duration
	for b.Loop() {
		t0 := time.Now()
		out, err := exec.Command("bash", "-c", pipeline+" >/dev/null").CombinedOutput()
		require.NoError(b, err, string(out))
		direct += time.Since(t0)
		t0 = time.Now()
		res := decode[bashRes](b, s.call(b, "tools/bash", map[string]any{"command": pipeline, "timeout": 3600}))
		tool += time.Since(t0)
		require.Equal(b, 1000000000+10000000-1, res.StdoutInfo.Bytes) // fold adds no final newline
	}
	b.ReportMetric(direct.Seconds()/float64(b.N), "direct-s/op")
	b.ReportMetric(tool.Seconds()/float64(b.N), "toolsbash-s/op")
	b.ReportMetric(float64(tool)/float64(direct), "ratio")
	b.ReportMetric(float64(vmHWM(b, s.pid()))/1024, "server-peak-RSS-MB")
}

// vmHWM returns the peak resident set of pid in KB.
func vmHWM(b *testing.B, pid int) int {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(b, err)
	for _, line := range strings.Split(string(st), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			require.NoError(b, err)
			return kb
		}
	}
	b.Fatal("no VmHWM")
	return 0
}

// BenchmarkBashCancelTree50 measures $/cancelRequest → reply for a call whose
// tree holds 50 processes (setsid, double-forked and plain background ones),
// checking after each reply that none survives. It reports the median of the
// iterations; run with -benchtime=20x.
func BenchmarkBashCancelTree50(b *testing.B) {
	const tree = `for i in $(seq 16); do setsid sleep 1000 & (sleep 1000 &); sleep 1000 & done; setsid sleep 1000 & echo up; sleep 1000`
	for _, mode := range []string{"default", "sweep"} {
		b.Run(mode, func(b *testing.B) {
			s := start(b, withEnv("TOOLRPC_KILL_MODE="+mode))
			var ds []time.Duration
			for b.Loop() {
				b.StopTimer()
				mark := fmt.Sprintf("bench-%d", time.Now().UnixNano())
				id := s.send(b, "tools/bash", map[string]any{"command": tree, "env": map[string]string{"TESTMARK": mark}})
				require.Eventually(b, func() bool { return len(markHolders(mark)) >= 50 }, time.Minute, time.Millisecond)
				b.StartTimer()
				t0 := time.Now()
				s.notify(b, "$/cancelRequest", map[string]any{"id": id})
				reply := s.wait(b, id)
				ds = append(ds, time.Since(t0))
				b.StopTimer()
				require.Equal(b, "CANCELLED", reply.Error.Kind)
				require.Empty(b, markHolders(mark))
				b.StartTimer()
			}
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
		})
	}
}

// TestBash_StreamThrottledPastFullBytes checks that past 1 MiB a stream is
// sampled, not dropped silently: every byte is either in a bashChunk or counted
// in skippedBytes, and the first 1 MiB arrives in full (a throttled chunk
// past it that found nothing to skip continues it).
//
// Checks SPEC §6.4.
func TestBash_StreamThrottledPastFullBytes(t *testing.T) {
	s := start(t)
	id := s.send(t, "tools/bash", map[string]any{"command": "seq 1 600000"})
	reply := s.wait(t, id)
	require.Nil(t, reply.Error)
	res := decode[bashRes](t, reply.Result)
	full := seqOutput(1, 600000)
	cs := chunksOf(t, s, id)["stdout"]
	var sent, skipped int64
	var head strings.Builder
	for i, c := range cs {
		require.Equal(t, i, c.Seq)
		if skipped == 0 && c.SkippedBytes == 0 {
			head.WriteString(c.Data)
		}
		sent += int64(len(c.Data))
		skipped += c.SkippedBytes
	}
	require.Equal(t, int64(len(full)), sent+skipped)
	require.Greater(t, skipped, int64(0))
	// The chunks before the first skip are the output from its start: at
	// least the first 1 MiB, and more when a throttled chunk past it found
	// nothing to skip yet (a slow writer, a loaded machine).
	require.GreaterOrEqual(t, head.Len(), 1<<20)
	require.True(t, head.String() == full[:head.Len()], "the chunks before the first skip are the output's first %d bytes", head.Len())
	require.True(t, strings.HasSuffix(full, cs[len(cs)-1].Data), "the last bashChunk carries the latest output")
	require.Equal(t, len(cs), res.StdoutInfo.Chunks)
}

// TestBash_StdinEOFKillsRunningTrees checks SPEC §1, §6.6: end of input kills
// the trees of running calls.
func TestBash_StdinEOFKillsRunningTrees(t *testing.T) {
	s := start(t)
	mark := newMark(t)
	s.send(t, "tools/bash", map[string]any{
		"command": "setsid sleep 1000 & (sleep 1000 &); sleep 1000", "env": map[string]string{"TESTMARK": mark},
	})
	require.Eventually(t, func() bool { return len(markHolders(mark)) >= 3 }, time.Minute, 5*time.Millisecond)
	require.NoError(t, s.stdin.Close())
	s.waitExit(t)
	require.Empty(t, markHolders(mark))
}
