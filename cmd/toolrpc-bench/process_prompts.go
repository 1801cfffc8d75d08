package main

import (
	"fmt"
	"sort"
	"time"
)

// The rows of issue 33: prompts only a look at every thread or at an epoll
// set finds, the reply to a write that waits for the program's redraw,
// and a watcher that clears its screen.

// procThreaded reads names in a second thread, forever.
const procThreaded = `python3 -c "import threading
def ask():
    while True: input('name? ')
t = threading.Thread(target=ask); t.start(); t.join()"`

// procViteLoop clears the screen as vite does (rows-2 newlines, cursor
// home, erase below) and prints its coloured banner, 200 times.
const procViteLoop = `for i in $(seq 200); do printf '\n%.0s' $(seq 38); printf '\033[H\033[J\n  \033[32m\033[1mVITE\033[22m v5.4.2\033[39m  \033[2mready in \033[0m\033[1m%d\033[22m\033[2m\033[0m ms\n\n  \033[32m➜\033[39m  \033[1mLocal\033[22m:   \033[36mhttp://localhost:\033[1m5173\033[22m/\033[39m\n  \033[32m➜\033[39m  \033[1mNetwork\033[22m: \033[2muse \033[22m\033[1m--host\033[22m\033[2m to expose\033[22m\n' $i; done`

func processPromptRows() []scenario {
	row := func(name string, bins []string, run func(*bench, *Row) error) scenario {
		return scenario{name: name, driven: drivenLongLived, unit: "ms", goal: goal{kind: valueAtMost, limit: 100}, bins: bins, run: run}
	}
	return []scenario{
		row("process: write → awaitingInput again, nvim -u NONE (TUI thread in epoll_wait), p95", []string{"nvim"},
			procAnswers("seq 50 > notes.txt; exec nvim -u NONE -i NONE notes.txt", "pty", nil, []string{"j", "k"})),
		row("process: write → awaitingInput again, input() in a second thread (python, pty), p95", []string{"python3"},
			procAnswers(procThreaded, "pty", nil, []string{"x\n"})),
		row("process: write → awaitingInput again, vim typing in insert mode (screen after the keys), p95", []string{"vim"},
			procAnswers("seq 50 > notes.txt; exec vim -u NONE -i NONE notes.txt", "pty", []string{"i"}, []string{"word "})),
		{name: "process: rendered ÷ raw bytes, vite-like clear-screen loop, 200 banners (pty)", driven: drivenLongLived, unit: "ratio",
			goal: goal{kind: valueAtMost, limit: 0.05}, bins: []string{"bash"}, run: procClearRatio},
	}
}

// procAnswers starts cmd, sends setup, then each of answers in turn, again
// and again, and measures each write until its reply says awaitingInput
// (the program's own turn included).
func procAnswers(cmd, mode string, setup, answers []string) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		s, done, err := procServer(b)
		if err != nil {
			return err
		}
		defer done()
		p, _, err := procCall(s, "start", map[string]any{"command": cmd, "mode": mode, "wait": procWait(30000, "input", "exit")})
		if err != nil {
			return err
		}
		if p.Reason != "input" {
			return fmt.Errorf("%s: start answered %s, want input", cmd, p.Reason)
		}
		write := func(data string) (time.Duration, error) {
			w, d, err := procCall(s, "write", map[string]any{"id": p.ID, "data": data, "wait": procWait(30000, "input", "exit")})
			if err == nil && w.Reason != "input" {
				err = fmt.Errorf("%s: write %q answered %s, want input", cmd, data, w.Reason)
			}
			return d, err
		}
		for _, d := range setup {
			if _, err := write(d); err != nil {
				return err
			}
		}
		per := max(b.cfg.runs*10, 20)
		var ds []time.Duration
		for i := 0; i < per; i++ {
			d, err := write(answers[i%len(answers)])
			if err != nil {
				return err
			}
			ds = append(ds, d)
		}
		if _, _, err := procCall(s, "signal", map[string]any{"id": p.ID, "signal": "KILL"}); err != nil {
			return err
		}
		setFigures(r, ds, nil)
		ms := millis(ds)
		sort.Float64s(ms)
		r.ToolrpcValue = ms[len(ms)*95/100]
		r.Note = fmt.Sprintf("%d writes; p50 %.1f ms, p95 %.1f ms", len(ms), ms[len(ms)/2], r.ToolrpcValue)
		return nil
	}
}

// procClearRatio compares the clear-screen loop's rendered log with its raw
// bytes.
func procClearRatio(b *bench, r *Row) error {
	return procRenderRatio(b, r, procViteLoop)
}
