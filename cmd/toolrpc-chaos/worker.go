//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// worker issues one random stream of calls in a session.
type worker struct {
	s   *session
	n   int
	rng *rand.Rand
	k   int // calls made
}

func newWorker(s *session, n int, rng *rand.Rand) *worker { return &worker{s: s, n: n, rng: rng} }

// maxSteps bounds a worker's calls in one session.
const maxSteps = 5000

func (w *worker) loop(ctx context.Context) {
	for ; w.k < maxSteps && ctx.Err() == nil && !w.s.ended.Load(); w.k++ {
		w.step(ctx)
		pause := time.Duration(w.rng.IntN(300)) * time.Millisecond
		if w.rng.IntN(10) == 0 {
			pause = time.Duration(w.rng.IntN(2000)) * time.Millisecond
		}
		sleepCtx(ctx, pause)
	}
}

// step makes one random call, or a short sequence (read then edit).
func (w *worker) step(ctx context.Context) {
	lsp := w.s.face != faceMCP
	kinds := []string{"read", "read", "grep", "grep", "grep", "glob", "glob", "bash", "bash", "bash", "bash",
		"edit", "edit", "write", "process", "process", "process", "process", "hostile"}
	if lsp {
		kinds = append(kinds, "compact", "load")
	}
	switch kinds[w.rng.IntN(len(kinds))] {
	case "read":
		w.send(ctx, "tools/read", w.readParams())
	case "grep":
		w.send(ctx, "tools/grep", w.grepParams())
	case "glob":
		w.send(ctx, "tools/glob", w.globParams())
	case "bash":
		w.bash(ctx)
	case "edit":
		w.edit(ctx)
	case "write":
		w.write(ctx)
	case "process":
		w.process(ctx)
	case "compact":
		w.compact(ctx)
	case "load":
		w.send(ctx, "context/load", map[string]any{"checkpointId": fmt.Sprintf("cp%d", w.rng.IntN(5))})
	case "hostile":
		w.hostile(ctx)
	}
}

// send makes a call with params, perhaps cancelled, and checks its outcome.
func (w *worker) send(ctx context.Context, method string, params any) outcome {
	return w.sendFile(ctx, method, params, "", nil)
}

// sendFile is send for a call that leaves expect in the edits/ file rel.
func (w *worker) sendFile(ctx context.Context, method string, params any, rel string, expect *string) outcome {
	c := &call{Method: method, Params: mustJSON(params), File: rel, Expect: expect}
	if expect != nil {
		w.s.sl.addVersion(rel, *expect)
	}
	if w.rng.IntN(5) == 0 {
		c.CancelMs = 1 + w.rng.Int64N(1500)
	}
	o := w.s.do(ctx, w.n, c)
	w.s.c.checkOutcome(w.s, c, o, nil)
	return o
}

func (w *worker) int64Of(choices ...int64) *int64 {
	if w.rng.IntN(3) == 0 {
		return nil
	}
	v := choices[w.rng.IntN(len(choices))]
	return &v
}

func (w *worker) readParams() map[string]any {
	paths := []string{"big.txt", "src/d01/f0001.txt", "edits/e0.txt", "edits/bin.dat", "src", "missing.txt",
		"/etc/hostname", "../outside", "build/out.txt", w.s.c.corpus.pick(w.rng, "path")}
	p := map[string]any{"path": paths[w.rng.IntN(len(paths))]}
	if v := w.int64Of(1, 2, 100, 5000, 40000, 0, -1, 1<<40); v != nil {
		p["offset"] = *v
	}
	if v := w.int64Of(1, 10, 2000, 4000, 4001, 0, -5); v != nil {
		p["limit"] = *v
	}
	return p
}

func (w *worker) grepParams() map[string]any {
	pats := []string{quietPattern, "line \\d+ of", "(?i)CHAOS", "quick.*fox", "é+", "^$", "[", w.s.c.corpus.pick(w.rng, "pattern")}
	p := map[string]any{"pattern": pats[w.rng.IntN(len(pats))]}
	if w.rng.IntN(3) == 0 {
		p["path"] = []string{"src", "src/d02", "edits", "big.txt", "mut", "nope", "/"}[w.rng.IntN(7)]
	}
	p["outputMode"] = []string{"content", "filesWithMatches", "count", "bogus"}[w.rng.IntN(4)]
	if v := w.int64Of(0, 1, 5, 50, 500, -1, 100000); v != nil {
		p["headLimit"] = *v
	}
	if v := w.int64Of(0, 3, 100, 1000, -2); v != nil {
		p["offset"] = *v
	}
	if v := w.int64Of(0, 1, 3, 50); v != nil {
		p["context"] = *v
	}
	if w.rng.IntN(6) == 0 {
		p["glob"] = w.globPattern()
	}
	if w.rng.IntN(8) == 0 {
		p["multiline"] = true
	}
	return p
}

func (w *worker) globPattern() string {
	pats := []string{"**", "**/*.txt", "src/*/f00*", "src/{d01,d02}/**", "*.txt", "**/new.txt", w.s.c.corpus.pick(w.rng, "glob")}
	return pats[w.rng.IntN(len(pats))]
}

func (w *worker) globParams() map[string]any {
	p := map[string]any{"pattern": w.globPattern()}
	if v := w.int64Of(1, 10, 100, 1000, 1001, 0, -1); v != nil {
		p["limit"] = *v
	}
	if v := w.int64Of(0, 10, 500, 5000); v != nil {
		p["offset"] = *v
	}
	return p
}

// bash runs a random command whose full stdout the driver knows when it
// is deterministic.
func (w *worker) bash(ctx context.Context) {
	var cmd, want string
	known := true
	var timeout any
	switch w.rng.IntN(14) {
	case 0:
		cmd = fmt.Sprintf("echo chaos-%d", w.k)
		want = fmt.Sprintf("chaos-%d\n", w.k)
	case 1, 2:
		n := []int{10, 5000, 100000, 250000}[w.rng.IntN(4)]
		cmd = fmt.Sprintf("seq 1 %d", n)
		want = seqOut(n)
	case 3:
		cmd = fmt.Sprintf("seq 1 %d >&2", []int{10, 50000, 300000}[w.rng.IntN(3)])
	case 4:
		cmd = "yes chaos | head -c 3000000"
		want = strings.Repeat("chaos\n", 500000)
	case 5:
		cmd = `printf 'a\xffb\xfe\n\xe2\x82'; printf '\xf0\x9f\x98' >&2`
		known = false
	case 6:
		cmd = "head -c 300000 /dev/zero | tr '\\0' x; echo"
		want = strings.Repeat("x", 300000) + "\n"
	case 7:
		cmd = "setsid sleep 30 & sleep 25 & echo bg"
		want = "bg\n"
	case 8:
		cmd, timeout = "sleep 5; echo late", 1+w.rng.IntN(2)
		known = false
	case 9:
		in := w.s.c.corpus.pick(w.rng, "text")
		var round string
		_ = json.Unmarshal(mustJSON(in), &round)
		w.sendBash(ctx, map[string]any{"command": "cat", "stdin": in}, round, true)
		return
	case 10:
		cmd = fmt.Sprintf("mkdir -p mut/b%d && for i in $(seq 1 200); do echo \"chaos $i\" > mut/b%d/f$i.txt; done; echo ok", w.n, w.n)
		want = "ok\n"
	case 11:
		cmd = []string{"exit 3", "kill -9 $$", "for i in 1 2 3 4 5 6; do (sleep 20 &); done; echo spawned"}[w.rng.IntN(3)]
		known = false
	case 12:
		cmd = []string{"", "echo x", "true"}[w.rng.IntN(3)]
		timeout = []any{0, -1, 30000, "soon", 0.5}[w.rng.IntN(5)]
		known = false
	default:
		cmd = "cd src && ls | head -3 && cat d00/f0000.txt | wc -l"
		known = false
	}
	p := map[string]any{"command": cmd, "env": map[string]string{"TOOLRPC_CHAOS_CMD": "1"}}
	if timeout != nil {
		p["timeout"] = timeout
	}
	if w.rng.IntN(6) == 0 {
		p["cwd"] = []string{"src", "../..", "nope", "/"}[w.rng.IntN(4)]
		known = false
	}
	w.sendBash(ctx, p, want, known)
}

func (w *worker) sendBash(ctx context.Context, p map[string]any, want string, known bool) {
	c := &call{Method: "tools/bash", Params: mustJSON(p), Progress: w.rng.IntN(2) == 0}
	if w.rng.IntN(5) == 0 {
		c.CancelMs = 1 + w.rng.Int64N(1500)
	}
	o := w.s.do(ctx, w.n, c)
	var exp *string
	if known {
		exp = &want
	}
	w.s.c.checkOutcome(w.s, c, o, exp)
}

func seqOut(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// ownFile is an edits/ file only this worker touches, so the driver knows
// its bytes before an edit.
func (w *worker) ownFile() string {
	return fmt.Sprintf("edits/e%d.txt", w.n+3*w.rng.IntN(2))
}

// edit reads a file whole, then edits lines the read showed, recording the
// exact bytes the edit must leave.
func (w *worker) edit(ctx context.Context) {
	rel := w.ownFile()
	b, err := os.ReadFile(filepath.Join(w.s.sl.ws, rel))
	text := string(b)
	if err != nil || len(text) == 0 || !strings.HasSuffix(text, "\n") || strings.ContainsAny(text, "\r\x00") || len(text) > 100000 {
		w.write(ctx)
		return
	}
	lines := strings.SplitAfter(text, "\n")
	lines = lines[:len(lines)-1]
	for _, l := range lines {
		if len(l) > 10000 {
			w.write(ctx)
			return
		}
	}
	o := w.send(ctx, "tools/read", map[string]any{"path": rel, "limit": 4000})
	if o.err != nil || o.rpc != nil {
		return
	}
	var r struct {
		Tag string `json:"tag"`
	}
	_ = json.Unmarshal(o.raw, &r)
	n := len(lines)
	start := 1 + w.rng.IntN(n)
	end := min(n, start+w.rng.IntN(3))
	newLines := []string{fmt.Sprintf("edited by w%d step %d", w.n, w.k), "chaos edit é"}
	var op map[string]any
	var out []string
	switch w.rng.IntN(3) {
	case 0:
		op = map[string]any{"op": "replace", "start": start, "end": end, "lines": newLines}
		out = append(append(append(out, lines[:start-1]...), withNL(newLines)...), lines[end:]...)
	case 1:
		at := start - 1
		op = map[string]any{"op": "insert", "start": at, "lines": newLines}
		out = append(append(append(out, lines[:at]...), withNL(newLines)...), lines[at:]...)
	default:
		op = map[string]any{"op": "delete", "start": start, "end": end}
		out = append(append(out, lines[:start-1]...), lines[end:]...)
	}
	tag, expect := r.Tag, strings.Join(out, "")
	if w.rng.IntN(8) == 0 {
		tag = "0000" // stale: must be refused, file unchanged
		w.send(ctx, "tools/edit", map[string]any{"path": rel, "tag": tag, "ops": []any{op}})
		return
	}
	w.sendFile(ctx, "tools/edit", map[string]any{"path": rel, "tag": tag, "ops": []any{op}}, rel, &expect)
}

func withNL(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l + "\n"
	}
	return out
}

// write replaces an own file or creates a new one with random content,
// recording the exact bytes sent.
func (w *worker) write(ctx context.Context) {
	rel := w.ownFile()
	if w.rng.IntN(3) == 0 {
		rel = fmt.Sprintf("edits/w%d-%d.txt", w.n, w.rng.IntN(4))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "chaos write w%d step %d\n", w.n, w.k)
	switch w.rng.IntN(3) {
	case 0:
		b.WriteString(w.s.c.corpus.pick(w.rng, "text"))
	case 1:
		for i := range w.rng.IntN(2000) {
			fmt.Fprintf(&b, "line %d chaos\n", i)
		}
	default:
		b.WriteString(strings.Repeat("é", w.rng.IntN(70000)) + "\n")
	}
	var content string
	_ = json.Unmarshal(mustJSON(b.String()), &content)
	w.sendFile(ctx, "tools/write", map[string]any{"path": rel, "content": content, "encoding": "utf-8"}, rel, &content)
}

// process drives the session's processes: start, read, write, signal, list.
func (w *worker) process(ctx context.Context) {
	w.s.pmu.Lock()
	ids := append([]string(nil), w.s.procs...)
	w.s.pmu.Unlock()
	id := "p999"
	if len(ids) > 0 && w.rng.IntN(8) != 0 {
		id = ids[w.rng.IntN(len(ids))]
	}
	wait := map[string]any{"timeoutMs": []int{0, 100, 500, 2000}[w.rng.IntN(4)]}
	if w.rng.IntN(3) == 0 {
		wait["until"] = [][]string{{"exit"}, {"input"}, {"idle"}, {"pattern"}, {"exit", "input", "idle"}}[w.rng.IntN(5)]
		wait["pattern"] = "tick [0-9]*5|name"
		wait["idleMs"] = []int{100, 300, 50}[w.rng.IntN(3)]
	}
	switch r := w.rng.IntN(10); {
	case r < 3 || len(ids) == 0:
		cmds := []string{"i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.2; done", `read -p "name? " x; echo hi $x`,
			"seq 1 30000", "setsid sleep 60 & echo bg; wait", "sleep 60", `printf 'progress\r50%%\r100%%\n\033[31mred\033[0m\n'; sleep 1`,
			`read -s -p "Password: " p; echo; echo ok`}
		p := map[string]any{"command": cmds[w.rng.IntN(len(cmds))], "wait": wait, "env": map[string]string{"TOOLRPC_CHAOS_CMD": "1"}}
		if w.rng.IntN(3) == 0 {
			p["mode"] = "pty"
		}
		o := w.send(ctx, "tools/process/start", p)
		var rep struct {
			ID string `json:"id"`
		}
		if o.rpc == nil && o.err == nil && json.Unmarshal(o.raw, &rep) == nil && rep.ID != "" {
			w.s.pmu.Lock()
			w.s.procs = append(w.s.procs, rep.ID)
			w.s.pmu.Unlock()
		}
	case r < 6:
		p := map[string]any{"id": id, "wait": wait}
		if v := w.int64Of(0, 10, 1<<30, -1); v != nil {
			p["since"] = *v
		}
		if v := w.int64Of(1, 5, 0); v != nil {
			p["tailLines"] = *v
		}
		w.send(ctx, "tools/process/read", p)
	case r < 8:
		p := map[string]any{"id": id, "data": "chaos\n", "wait": wait}
		if w.rng.IntN(3) == 0 {
			p["keys"] = []string{"Enter", "C-c", "Up", "Bogus"}[:1+w.rng.IntN(4)]
		}
		if w.rng.IntN(5) == 0 {
			p["eof"] = true
		}
		w.send(ctx, "tools/process/write", p)
	case r < 9:
		sig := []string{"INT", "TERM", "KILL", "TSTP", "CONT", "HUP", "BOGUS"}[w.rng.IntN(7)]
		w.send(ctx, "tools/process/signal", map[string]any{"id": id, "signal": sig, "graceMs": w.rng.IntN(1000), "wait": wait})
	default:
		w.send(ctx, "tools/process/list", map[string]any{})
	}
}

// compact sends a random transcript to context/compact and records what
// was answered, for the load after a restart.
func (w *worker) compact(ctx context.Context) {
	id := fmt.Sprintf("cp%d", w.rng.IntN(4))
	var msgs []map[string]any
	msgs = append(msgs, map[string]any{"role": "user", "content": strings.Repeat("question chaos ", 1+w.rng.IntN(8000))})
	calls := 1 + w.rng.IntN(4)
	var tc []map[string]any
	for i := range calls {
		tc = append(tc, map[string]any{"id": fmt.Sprintf("c%d", i), "name": "bash"})
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "", "toolCalls": tc})
	for i := range calls {
		// Each result stays under 2 MB: a request over the 64 MB frame
		// limit is refused with a null id, which ends the client's session.
		unit := w.s.c.corpus.pick(w.rng, "text") + " result "
		msgs = append(msgs, map[string]any{"role": "tool", "toolCallId": fmt.Sprintf("c%d", i),
			"content": strings.Repeat(unit, 1+w.rng.IntN(max(1, min(3000, (2<<20)/len(unit)))))})
	}
	if w.rng.IntN(10) == 0 {
		msgs = append(msgs, map[string]any{"role": "bogus"})
	}
	sl := w.s.sl
	sl.mu.Lock()
	ck := sl.checkpoints[id]
	if ck == nil {
		ck = &ckpt{ok: map[string]bool{}}
		sl.checkpoints[id] = ck
	}
	ck.unknown++
	sl.mu.Unlock()
	o := w.send(ctx, "context/compact", map[string]any{"checkpointId": id, "messages": msgs})
	sl.mu.Lock()
	defer sl.mu.Unlock()
	switch {
	case o.err == nil && o.rpc == nil:
		var r struct {
			Messages json.RawMessage `json:"messages"`
		}
		_ = json.Unmarshal(o.raw, &r)
		ck.ok[canonical(r.Messages)] = true
		ck.unknown--
	case o.rpc != nil && o.rpc.Kind == "INVALID_ARGUMENT":
		ck.unknown--
	}
}

// hostile sends what no host should: unknown methods, params of the wrong
// shape. Each must get an error reply, and the session go on.
func (w *worker) hostile(ctx context.Context) {
	methods := []string{"tools/nope", "tools/read", "tools/grep", "tools/bash", "tools/edit", "tools/process/start", "tools/glob"}
	params := []json.RawMessage{json.RawMessage(`[]`), json.RawMessage(`{"path":5}`), json.RawMessage(`{"pattern":null}`),
		json.RawMessage(`{"command":["x"]}`), json.RawMessage(`{"ops":"x","path":"edits/e0.txt","tag":"zz"}`),
		mustJSON(map[string]any{"path": w.s.c.corpus.pick(w.rng, "path"), "pattern": w.s.c.corpus.pick(w.rng, "pattern")})}
	c := &call{Method: methods[w.rng.IntN(len(methods))], Params: params[w.rng.IntN(len(params))]}
	if w.s.face == faceMCP && !json.Valid(c.Params) || w.s.face == faceMCP && c.Params[0] == '[' {
		c.Params = json.RawMessage(`{"path":5}`)
	}
	o := w.s.do(ctx, w.n, c)
	w.s.c.checkOutcome(w.s, c, o, nil)
}
