package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The process rows (SPEC §13, issue 23): how fast a prompt, a listen and an
// exit are reported, how much a redrawn progress bar costs in the log, and
// what 32 processes cost the server. Each row runs on a fresh server.

// procReply is what the process rows read of a reply.
type procReply struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Reason string `json:"reason"`
	Output string `json:"output"`
	Cursor struct {
		To int64 `json:"to"`
	} `json:"cursor"`
}

// procBar is the 500-redraw progress bar of the rendering row.
const procBar = `b=##################################################; for i in $(seq 0 500); do printf '\r\033[36m[%-50s]\033[0m %3d%%\033[K' "${b:0:$((i/10))}" $((i/5)); done; echo`

func processRows() []scenario {
	return []scenario{
		{name: "process: prompt appears → write answers awaitingInput (read -p pty, python input pipe, python3 -i pty), p50", driven: drivenLongLived, unit: "ms",
			goal: goal{kind: valueAtMost, limit: 30}, bins: []string{"python3"}, run: procPrompt},
		{name: "process: socket listens → start answers reason port", driven: drivenLongLived, unit: "ms",
			goal: goal{kind: valueAtMost, limit: 100}, bins: []string{"python3"}, run: procPort},
		{name: "process: `sleep 300 & exit` → start answers reason exit (tree killed)", driven: drivenLongLived, unit: "ms",
			goal: goal{kind: valueAtMost, limit: 50}, peer: "start `exit`", run: procBackgroundExit},
		{name: "process: rendered ÷ raw bytes, 500-redraw progress bar (pty)", driven: drivenLongLived, unit: "ratio",
			goal: goal{kind: valueAtMost, limit: 0.05}, bins: []string{"bash"}, run: procBarRatio},
		{name: "process: 32 processes printing 1 MB/s each → server VmHWM over idle", driven: drivenFresh, unit: "MB",
			goal: goal{kind: valueAtMost, limit: 64}, bins: []string{"python3"}, run: procRSS},
		{name: "process: 32 quiet processes, 32 calls waiting for input → server CPU, % of one core", driven: drivenFresh, unit: "%",
			goal: goal{kind: valueAtMost, limit: 2}, peer: "waiting for exit", run: procPollerCPU},
	}
}

// processRowsAll is the process rows of issue 23 and issue 33.
func processRowsAll() []scenario { return append(processRows(), processPromptRows()...) }

// procServer starts a fresh server on a scratch workspace.
func procServer(b *bench) (*server, func(), error) {
	dir, err := os.MkdirTemp("", "toolrpc-bench-process-")
	if err != nil {
		return nil, nil, err
	}
	s, err := b.fresh(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return s, func() { _ = s.close(); os.RemoveAll(dir) }, nil
}

// procCall calls a process tool and decodes its reply.
func procCall(s *server, tool string, params map[string]any) (procReply, time.Duration, error) {
	raw, d, err := s.call("tools/process/"+tool, params)
	var r procReply
	if err == nil {
		err = json.Unmarshal(raw, &r)
	}
	return r, d, err
}

func procWait(timeoutMs int, until ...string) map[string]any {
	return map[string]any{"until": until, "timeoutMs": timeoutMs}
}

// procPrompt answers a prompting loop again and again: the time from the
// write to its reply is the time from the next prompt appearing to the
// awaitingInput answer, plus the program's own turn.
func procPrompt(b *bench, r *Row) error {
	s, done, err := procServer(b)
	if err != nil {
		return err
	}
	defer done()
	loops := []struct{ mode, cmd, answer string }{
		{"pty", `while read -p 'Name? ' n; do :; done`, "x\n"},
		{"pipe", `python3 -c 'while True: input("> ")'`, "x\n"},
		{"pty", `python3 -i -q`, "1\n"},
	}
	per := max(b.cfg.runs*10, 10)
	var ds []time.Duration
	for _, l := range loops {
		p, _, err := procCall(s, "start", map[string]any{"command": l.cmd, "mode": l.mode, "wait": procWait(30000, "input", "exit")})
		if err != nil {
			return err
		}
		if p.Reason != "input" {
			return fmt.Errorf("%s: start answered %s, want input", l.cmd, p.Reason)
		}
		for i := 0; i < per; i++ {
			w, d, err := procCall(s, "write", map[string]any{"id": p.ID, "data": l.answer, "wait": procWait(30000, "input", "exit")})
			if err != nil {
				return err
			}
			if w.Reason != "input" {
				return fmt.Errorf("%s: write answered %s, want input", l.cmd, w.Reason)
			}
			ds = append(ds, d)
		}
		if _, _, err := procCall(s, "signal", map[string]any{"id": p.ID, "signal": "KILL"}); err != nil {
			return err
		}
	}
	setFigures(r, ds, nil)
	ms := millis(ds)
	sort.Float64s(ms)
	r.Note = fmt.Sprintf("%d answers over 3 programs; p95 %.1f ms (goal ≤ 100 ms)", len(ms), ms[len(ms)*95/100])
	return nil
}

// procPort starts a program that prints the time it listened, and measures
// from that moment to the reply naming the port.
func procPort(b *bench, r *Row) error {
	s, done, err := procServer(b)
	if err != nil {
		return err
	}
	defer done()
	cmd := `python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(time.time(), flush=True); time.sleep(600)'`
	var ds []time.Duration
	for i := 0; i < b.cfg.runs; i++ {
		p, _, err := procCall(s, "start", map[string]any{"command": cmd, "wait": procWait(30000, "port", "exit")})
		answered := time.Now()
		if err != nil {
			return err
		}
		if p.Reason != "port" {
			return fmt.Errorf("start answered %s, want port", p.Reason)
		}
		if p.Output == "" { // the print may still be on its way
			q, _, err := procCall(s, "read", map[string]any{"id": p.ID, "since": 0, "wait": map[string]any{"until": []string{"pattern"}, "pattern": `^\d`, "timeoutMs": 30000}})
			if err != nil {
				return err
			}
			p.Output = q.Output
		}
		secs, err := strconv.ParseFloat(strings.TrimSpace(strings.SplitN(p.Output, "\n", 2)[0]), 64)
		if err != nil {
			return fmt.Errorf("listen time %q: %w", p.Output, err)
		}
		ds = append(ds, answered.Sub(time.Unix(0, int64(secs*1e9))))
		if _, _, err := procCall(s, "signal", map[string]any{"id": p.ID, "signal": "KILL"}); err != nil {
			return err
		}
	}
	setFigures(r, ds, nil)
	r.Note = fmt.Sprintf("median of %d; from the listen (the program's own clock) to the reply", len(ds))
	return nil
}

// procBackgroundExit measures start → exit reply for a shell that leaves a
// child holding its output, against one that leaves none.
func procBackgroundExit(b *bench, r *Row) error {
	s, done, err := procServer(b)
	if err != nil {
		return err
	}
	defer done()
	var as, ps []time.Duration
	for i := 0; i < b.cfg.runs*4; i++ {
		for _, c := range []struct {
			cmd string
			out *[]time.Duration
		}{{"sleep 300 & exit 0", &as}, {"exit 0", &ps}} {
			p, d, err := procCall(s, "start", map[string]any{"command": c.cmd, "wait": procWait(30000, "exit")})
			if err != nil {
				return err
			}
			if p.Reason != "exit" {
				return fmt.Errorf("%s: start answered %s", c.cmd, p.Reason)
			}
			*c.out = append(*c.out, d)
		}
	}
	setFigures(r, as, ps)
	r.Note = fmt.Sprintf("median of %d starts each; includes spawning bash", len(as))
	return nil
}

// procBarRatio compares the bar's rendered log with its raw bytes.
func procBarRatio(b *bench, r *Row) error {
	return procRenderRatio(b, r, procBar)
}

// procRenderRatio compares the rendered log of a pty command that prints
// and exits with its raw bytes.
func procRenderRatio(b *bench, r *Row, procBar string) error {
	s, done, err := procServer(b)
	if err != nil {
		return err
	}
	defer done()
	raw, err := exec.Command("bash", "-c", procBar).Output()
	if err != nil {
		return err
	}
	p, _, err := procCall(s, "start", map[string]any{"command": procBar, "mode": "pty", "wait": procWait(30000, "exit")})
	if err != nil {
		return err
	}
	r.ToolrpcValue = float64(p.Cursor.To) / float64(len(raw))
	r.Runs, r.measured = 1, true
	r.Note = fmt.Sprintf("%d rendered bytes (%d line) of %d raw", p.Cursor.To, strings.Count(p.Output, "\n"), len(raw))
	return nil
}

// procLoad is how long the RSS and CPU rows hold their load: 30 s in a full
// run, less in a quick one.
func procLoad(b *bench) time.Duration {
	if b.cfg.runs >= fullRuns {
		return 30 * time.Second
	}
	return time.Duration(b.cfg.runs) * 2 * time.Second
}

// procRSS starts 32 processes printing 1 MB/s each and samples the
// server's resident set.
func procRSS(b *bench, r *Row) error {
	s, done, err := procServer(b)
	if err != nil {
		return err
	}
	defer done()
	time.Sleep(200 * time.Millisecond)
	idle, err := statusBytes(s.pid(), "VmRSS")
	if err != nil {
		return err
	}
	cmd := `python3 -c 'import sys,time
line = "x" * 99 + "\n"
while True:
    t = time.time()
    sys.stdout.write(line * 1000); sys.stdout.flush()
    time.sleep(max(0, 0.1 - (time.time() - t)))'`
	for i := 0; i < 32; i++ {
		if _, _, err := procCall(s, "start", map[string]any{"command": cmd, "wait": procWait(0)}); err != nil {
			return err
		}
	}
	time.Sleep(procLoad(b))
	peak, err := statusBytes(s.pid(), "VmHWM")
	if err != nil {
		return err
	}
	var produced int64
	for i := 1; i <= 32; i++ {
		p, _, err := procCall(s, "read", map[string]any{"id": "p" + strconv.Itoa(i), "tailLines": 1, "wait": procWait(0)})
		if err != nil {
			return err
		}
		produced += p.Cursor.To
	}
	r.ToolrpcValue = float64(peak-idle) / 1e6
	r.Runs, r.measured = 1, true
	r.Note = fmt.Sprintf("%v of load; %.0f MB rendered in all; idle VmRSS %.1f MB", procLoad(b), float64(produced)/1e6, float64(idle)/1e6)
	return nil
}

// procPollerCPU keeps 32 quiet processes with a call waiting for input on
// each and measures the server's CPU time; the peer is the same server with
// the 32 calls waiting for exit only (no input poller).
func procPollerCPU(b *bench, r *Row) error {
	s, done, err := procServer(b)
	if err != nil {
		return err
	}
	defer done()
	for i := 0; i < 32; i++ {
		if _, _, err := procCall(s, "start", map[string]any{"command": "sleep 600", "wait": procWait(0)}); err != nil {
			return err
		}
	}
	load := procLoad(b)
	withPoller, err := waitingCPU(s, load, "input")
	if err != nil {
		return err
	}
	without, err := waitingCPU(s, load, "exit")
	if err != nil {
		return err
	}
	r.ToolrpcValue, r.PeerValue = withPoller, without
	r.Runs, r.measured = 1, true
	r.Note = fmt.Sprintf("%v of waiting each; the peer column is the same 32 waits for exit only", load)
	return nil
}

// waitingCPU has one call per process wait for until over load and returns
// the server's CPU in percent of one core.
func waitingCPU(s *server, load time.Duration, until string) (float64, error) {
	t0, err := cpuTime(s.pid())
	if err != nil {
		return 0, err
	}
	began := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := 1; i <= 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, _, err := procCall(s, "read", map[string]any{"id": "p" + strconv.Itoa(i), "wait": procWait(int(load.Milliseconds()), until)})
			if err == nil && p.Reason != "timeout" {
				err = fmt.Errorf("p%d: reason %s on a sleeping process", i, p.Reason)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return 0, err
		}
	}
	t1, err := cpuTime(s.pid())
	if err != nil {
		return 0, err
	}
	return 100 * (t1 - t0).Seconds() / time.Since(began).Seconds(), nil
}
