package shell

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/capture"
	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/spill"
)

// scratch returns a real spill directory for one test.
func scratch(t *testing.T) *spill.Dir {
	t.Helper()
	d := spill.New(t.TempDir(), "shell-test")
	t.Cleanup(func() { _ = d.Remove() })
	return d
}

// chunks collects the progress chunks of one Run.
type chunks struct {
	mu  sync.Mutex
	got []capture.Chunk
}

func (c *chunks) send(ch capture.Chunk) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, ch)
	return nil
}

func TestRunStreamsBeforeReturning(t *testing.T) {
	var rec chunks
	res, err := Run(context.Background(), Spec{Command: "seq 1 30000; echo e >&2; exit 4", Dir: t.TempDir(),
		Progress: rec.send, Spill: scratch(t)})
	require.NoError(t, err)
	require.Equal(t, 4, *res.ExitCode)
	require.Empty(t, res.Signal)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out strings.Builder
	seqs := map[string]int{}
	for _, c := range rec.got {
		require.Equal(t, seqs[c.Stream], c.Seq)
		seqs[c.Stream]++
		if c.Stream == "stdout" {
			out.WriteString(c.Data)
		}
	}
	require.Equal(t, res.StdoutInfo.Chunks, seqs["stdout"])
	require.Equal(t, 1, seqs["stderr"])
	require.Equal(t, 1, res.StderrInfo.Chunks)
	require.True(t, strings.HasPrefix(out.String(), "1\n2\n3\n"))
	require.True(t, strings.HasSuffix(out.String(), "29999\n30000\n"))
	require.Equal(t, 30000, res.StdoutInfo.Lines)
	require.True(t, res.StdoutInfo.Truncated)
	require.True(t, res.Truncated)
	require.Equal(t, "e\n", res.Stderr)
	spilled, err := os.ReadFile(res.StdoutInfo.Spill)
	require.NoError(t, err)
	require.Equal(t, res.StdoutInfo.Bytes, len(spilled), "the whole stream fits the capture, so the spill holds it all")
	require.True(t, strings.HasSuffix(res.Stdout, "4000\n[truncated: kept the first 4000 of 30000 lines; limit 4000 lines / 96KB. Full output saved to "+
		res.StdoutInfo.Spill+" — Grep it, or Read it with offset/limit.]\n"))
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	res, err := Run(ctx, Spec{Command: "echo go; sleep 1000", Dir: t.TempDir(), Progress: func(capture.Chunk) error {
		once.Do(cancel)
		return nil
	}})
	var ce *CancelledError
	require.ErrorAs(t, err, &ce)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, "cancelled; the process tree was killed: context canceled", err.Error())
	require.Equal(t, "go\n", res.Stdout)
	require.Equal(t, "SIGKILL", res.Signal)
	require.Nil(t, res.ExitCode)
}

func TestRunTimeout(t *testing.T) {
	res, err := Run(context.Background(), Spec{Command: "echo start; echo late >&2; exec sleep 1000", Dir: t.TempDir(),
		Timeout: 1500 * time.Millisecond})
	var te *TimeoutError
	require.ErrorAs(t, err, &te)
	require.Equal(t, 1500*time.Millisecond, te.After)
	require.Equal(t, "timed out after 1.5 s; the process tree was killed", err.Error())
	require.Equal(t, "start\n", res.Stdout)
	require.Equal(t, "late\n", res.Stderr)
	require.Equal(t, "SIGKILL", res.Signal)
}

func TestRunStartedCancelledNeverRuns(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Spec{Command: "touch ran", Dir: dir})
	require.ErrorIs(t, err, context.Canceled)
	require.NoFileExists(t, filepath.Join(dir, "ran"))
}

func TestRunDirGone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	_, err := Run(context.Background(), Spec{Command: "true", Dir: dir})
	require.ErrorIs(t, err, ErrDirGone)
}

func TestRunEnvironment(t *testing.T) {
	env, err := Env(map[string]string{"PAGER": "less", "FOO": "bar"})
	require.NoError(t, err)
	require.Equal(t, []string{"FOO=bar", "PAGER=less"}, env)
	res, err := Run(context.Background(), Spec{Command: `echo "$FOO $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"`, Dir: t.TempDir(), Env: env})
	require.NoError(t, err)
	require.Equal(t, "bar cat cat 0\n", res.Stdout, "the policy wins over the caller's variables")
}

func TestEnvRefusesBadNames(t *testing.T) {
	for _, env := range []map[string]string{{"": "x"}, {"A=B": "c"}, {"A\x00": "c"}, {"A": "c\x00"}} {
		_, err := Env(env)
		require.Error(t, err, "%q", env)
	}
}

// failingSpill is a spill directory where the scratch tree cannot be made.
func failingSpill(t *testing.T) *spill.Dir {
	t.Helper()
	data := t.TempDir()
	// A file where the scratch tree should go makes every spill fail.
	require.NoError(t, os.WriteFile(filepath.Join(data, "scratch"), nil, 0o600))
	return spill.New(data, "s")
}

func TestRunFailedSpillDropsOnlyTheSentence(t *testing.T) {
	var logged []string
	res, err := Run(context.Background(), Spec{Command: "seq 10000", Dir: t.TempDir(), Spill: failingSpill(t),
		Logf: func(f string, a ...any) { logged = append(logged, f) }})
	require.NoError(t, err)
	require.True(t, res.Truncated)
	require.Empty(t, res.StdoutInfo.Spill)
	require.Len(t, logged, 1)
	require.True(t, strings.HasSuffix(res.Stdout, "4000\n[truncated: kept the first 4000 of 10000 lines; limit 4000 lines / 96KB. Narrow the request to see more.]\n"))
}

func TestCutTailNamesSpill(t *testing.T) {
	tail := capture.NewTail(limits.CaptureMaxBytes, limits.CaptureMaxLines)
	for i := range 5000 {
		_, _ = tail.Write([]byte(strings.Repeat("x", i%7) + "\n"))
	}
	s, err := Cut(tail.Snapshot(), Tail, cut.ShellErrBudget(), scratch(t), SpillLabel("bash", "stderr"))
	require.NoError(t, err)
	require.True(t, s.Truncated)
	require.True(t, strings.HasPrefix(filepath.Base(s.Spill), "bash-stderr-"), s.Spill)
	require.True(t, strings.HasPrefix(s.Text, "[truncated: kept the last 4000 of 5000 lines; limit 4000 lines / 96KB. Full output saved to "+s.Spill+" — Grep it, or Read it with offset/limit.]\n"), s.Text[:200])
}

// FuzzCut checks Cut against what was written: the counts are exact, the text
// is valid UTF-8 within the budget plus its marker, a marker is present
// exactly when something was cut, and a spill holds the captured copy.
func FuzzCut(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), uint16(2), uint16(1), false)
	f.Add([]byte("\xff\xfe long line without end"), uint16(4), uint16(1), true)
	f.Add(bytes.Repeat([]byte("é\n"), 40), uint16(10), uint16(3), true)
	dir := spill.New(f.TempDir(), "fuzz")
	f.Fuzz(func(t *testing.T, in []byte, maxBytes, lines uint16, tail bool) {
		b := cut.Budget{Bytes: int(maxBytes % 256), Lines: int(lines%16) + 1}
		var k keeper = capture.NewHead(64, 8)
		end := Head
		if tail {
			k, end = capture.NewTail(64, 8), Tail
		}
		_, _ = k.Write(in)
		snap := k.Snapshot()
		s, err := Cut(snap, end, b, dir, "fuzz")
		require.NoError(t, err)
		require.Equal(t, len(in), s.Bytes)
		require.Equal(t, cut.CountLines(in), s.Lines)
		require.Equal(t, snap.OmittedBytes, s.OmittedBytes)
		require.True(t, utf8.ValidString(s.Text))
		require.Equal(t, s.Truncated, strings.Contains(s.Text, "[truncated: "), "a marker iff cut")
		if !s.Truncated {
			require.Empty(t, s.Spill)
			require.Equal(t, cut.Repair(snap.Text), s.Text)
			return
		}
		require.Contains(t, s.Text, "Full output saved to "+s.Spill)
		saved, err := os.ReadFile(s.Spill)
		require.NoError(t, err)
		require.Equal(t, snap.Text, saved)
		_ = os.Remove(s.Spill)
	})
}
