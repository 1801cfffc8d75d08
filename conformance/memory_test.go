package conformance

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// heavyCalls and heavyStreamBytes shape the output-heavy load of issue 16
// item 6: 64 concurrent calls, each printing 5 MB on each stream.
const (
	heavyCalls       = 64
	heavyStreamBytes = 5 << 20
)

// heavyCommand prints heavyStreamBytes on stdout and on stderr at once.
var heavyCommand = fmt.Sprintf(`(yes 'out 0123456789 abcdefghijklmnopqrstuvwxyz' | head -c %d) & (yes 'err 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ' | head -c %d >&2) & wait`,
	heavyStreamBytes, heavyStreamBytes)

// heavyGoalKB is the goal for the server's peak RSS under that load.
const heavyGoalKB = 160 * 1024

// comparableBash strips what may differ between two runs of the same command.
func comparableBash(r bashRes) bashRes {
	r.DurationMs = nil
	r.Stdout = strings.ReplaceAll(r.Stdout, *r.StdoutInfo.Spill, "<spill>")
	r.Stderr = strings.ReplaceAll(r.Stderr, *r.StderrInfo.Spill, "<spill>")
	for _, in := range []*bashInfo{&r.StdoutInfo, &r.StderrInfo} {
		in.Spill = nil
		in.Chunks = 0
	}
	return r
}

// TestLoad_OutputHeavyMemory (issue 16 item 6): the server's peak RSS
// (VmHWM) under 64 concurrent calls that each print 5 MB on each stream, and
// every result equal to that of the same command run alone. The peak is
// logged; it is held to the 160 MB goal only without the race detector,
// whose shadow memory multiplies it. Before the fix the peak was 567–592 MB.
//
// Checks SPEC §1, §6.1.
func TestLoad_OutputHeavyMemory(t *testing.T) {
	s := start(t)
	alone := comparableBash(callBash(t, s, map[string]any{"command": heavyCommand}))
	require.Equal(t, heavyStreamBytes, alone.StdoutInfo.Bytes)
	require.Equal(t, heavyStreamBytes, alone.StderrInfo.Bytes)
	require.True(t, alone.Truncated)

	s = start(t)
	began := time.Now()
	ids := make([]json.RawMessage, heavyCalls)
	for i := range ids {
		ids[i] = s.send(t, "tools/bash", map[string]any{"command": heavyCommand, "timeout": 600})
	}
	var wg sync.WaitGroup
	results := make([]bashRes, heavyCalls)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := s.wait(t, id)
			if f.Error == nil {
				results[i] = decode[bashRes](t, f.Result)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	for i, r := range results {
		got := comparableBash(r)
		require.Equal(t, alone.StdoutInfo, got.StdoutInfo, "call %d: stdoutInfo differs from the same command run alone", i)
		require.Equal(t, alone.StderrInfo, got.StderrInfo, "call %d: stderrInfo differs from the same command run alone", i)
		require.True(t, alone.Stdout == got.Stdout, "call %d: stdout differs from the same command run alone", i)
		require.True(t, alone.Stderr == got.Stderr, "call %d: stderr differs from the same command run alone", i)
		require.Equal(t, alone, got, "call %d differs from the same command run alone", i)
	}
	hwm := vmHWMKB(t, s.pid())
	t.Logf("%d calls × 5 MB per stream in %v: server peak RSS (VmHWM) %d kB = %.1f MB (goal ≤ 160 MB)",
		heavyCalls, elapsed.Round(time.Millisecond), hwm, float64(hwm)/1024)
	if !raceBuilt {
		require.LessOrEqual(t, hwm, int64(heavyGoalKB), "peak RSS under %d output-heavy calls", heavyCalls)
	}
}
