package main

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// The shell session rows (SPEC §6.7, issue 48): a warm session's `true`,
// `pwd` and `echo $VAR`, call to reply, against the same commands in a fresh
// tools/bash and against today's workaround, `bash -i` under
// tools/process/start driven by write with a pattern wait. One server for
// all three, in one run; p95 in the note.

// sessionCommands are the commands the rows time; their own time is next
// to nothing.
var sessionCommands = []string{"true", "pwd", "echo $VAR"}

func sessionRows() []scenario {
	return []scenario{
		{name: "bash session: `true`, `pwd`, `echo $VAR` → reply, p50 (peer: fresh tools/bash)", driven: drivenLongLived, unit: "ms",
			goal: goal{kind: ratioAtMost, limit: 1}, peer: "tools/bash, no session", run: sessionVsFresh},
		{name: "bash session: `true`, `pwd`, `echo $VAR` → reply, p50 (peer: `bash -i` under process/start + write)", driven: drivenLongLived, unit: "ms",
			goal: goal{kind: ratioAtMost, limit: 1}, peer: "process write + pattern wait", run: sessionVsInteractive},
	}
}

// sessionTimes times the session's commands, runs rounds of each.
func sessionTimes(b *bench, s *server, rounds int) ([]time.Duration, error) {
	if _, _, err := s.call("tools/bash", map[string]any{"command": "export VAR=value", "session": "bench"}); err != nil {
		return nil, err
	}
	var ds []time.Duration
	for i := 0; i < rounds; i++ {
		for _, c := range sessionCommands {
			_, d, err := s.call("tools/bash", map[string]any{"command": c, "session": "bench"})
			if err != nil {
				return nil, err
			}
			ds = append(ds, d)
		}
	}
	return ds, nil
}

// sessionVsFresh is the session against a fresh tools/bash per command.
func sessionVsFresh(b *bench, r *Row) error {
	s, done, err := procServer(b)
	if err != nil {
		return err
	}
	defer done()
	rounds := b.cfg.runs * 10
	as, err := sessionTimes(b, s, rounds)
	if err != nil {
		return err
	}
	var ps, floor []time.Duration
	for i := 0; i < rounds; i++ {
		for _, c := range sessionCommands {
			_, d, err := s.call("tools/bash", map[string]any{"command": c, "env": map[string]string{"VAR": "value"}})
			if err != nil {
				return err
			}
			ps = append(ps, d)
			// The floor: a call that runs nothing, on the same connection.
			if _, d, err = s.call("tools/process/list", map[string]any{}); err != nil {
				return err
			}
			floor = append(floor, d)
		}
	}
	setFigures(r, as, ps)
	r.Note = "p95 " + p95Note(as, ps) + fmt.Sprintf("; floor, the round trip of tools/process/list (nothing run): p50 %.2f ms", median(millis(floor)))
	return nil
}

// sessionVsInteractive is the session against `bash -i` under the process
// tools: each command written with a marker echo, the write waiting for the
// marker's line.
func sessionVsInteractive(b *bench, r *Row) error {
	s, done, err := procServer(b)
	if err != nil {
		return err
	}
	defer done()
	rounds := b.cfg.runs * 10
	as, err := sessionTimes(b, s, rounds)
	if err != nil {
		return err
	}
	p, _, err := procCall(s, "start", map[string]any{"command": "PS1= VAR=value bash --norc --noprofile -i", "wait": procWait(0)})
	if err != nil {
		return err
	}
	defer procCall(s, "signal", map[string]any{"id": p.ID, "signal": "KILL"})
	var ps []time.Duration
	n := 0
	for i := 0; i < rounds; i++ {
		for _, c := range sessionCommands {
			n++
			mark := "__mark_" + strconv.Itoa(n)
			w, d, err := procCall(s, "write", map[string]any{"id": p.ID, "data": c + "; echo " + mark + "\n",
				"wait": map[string]any{"until": []string{"pattern", "exit"}, "pattern": mark + "$", "timeoutMs": 5000}})
			if err != nil {
				return err
			}
			if w.Reason != "pattern" {
				return fmt.Errorf("bash -i: write answered %s: %q", w.Reason, w.Output)
			}
			ps = append(ps, d)
		}
	}
	setFigures(r, as, ps)
	r.Note = "p95 " + p95Note(as, ps)
	return nil
}

// p95Note states both sides' 95th percentiles.
func p95Note(as, ps []time.Duration) string {
	return fmt.Sprintf("%.2f ms against %.2f ms; %d commands each", p95(as), p95(ps), len(as))
}

// p95 is the 95th percentile of ds in ms.
func p95(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[(len(s)*95)/100]) / float64(time.Millisecond)
}
