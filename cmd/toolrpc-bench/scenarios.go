package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolrpc/toolrpc/client"
	"github.com/toolrpc/toolrpc/limits"
)

// scenario is one row of the table and how to measure it.
type scenario struct {
	name   string
	driven string
	unit   string
	goal   goal
	peer   string   // how the peer column names the peer
	bins   []string // programs the peer needs
	// run measures the row: it fills the figures and samples, and may add a
	// note or set Status to statusMissed for a failed check.
	run func(b *bench, r *Row) error
}

// Peer command prefixes: every peer honours the same ignore rules as
// toolrpc (SPEC §5: .gitignore with or without git, hidden files searched).
var (
	rgArgs = []string{"rg", "--hidden", "--no-require-git"}
	fdArgs = []string{"fdfind", "--hidden", "-t", "f"}
)

// wideHeadLimit lets count and filesWithMatches rows list every file, so
// toolrpc does the same whole-tree search as its peer.
const wideHeadLimit = 1000000

// Patterns of the Go-tree rows.
const (
	patCount    = `errors\.New`
	patFiles    = `func Test`
	patFold     = `nil pointer dereference`
	patNewest   = `func `
	patWeak     = `[A-Z]{3,}_[A-Z]+ = `
	patNoLit    = `[0-9]{10}`
	cancelTree  = `for i in $(seq 16); do setsid sleep 1000 & (sleep 1000 &); sleep 1000 & done; setsid sleep 1000 & echo up; sleep 1000`
	cancelProcs = 50
	markEnv     = "TOOLRPC_BENCH_MARK"
)

// Names of the rows whose measurements another row reuses.
const (
	rowBash = "bash 1 GB pipeline through tools/bash"
	rowRSS  = "server peak RSS during the bash row (VmHWM)"
)

func scenarios() []scenario {
	rg := func(args ...string) []string { return append(append([]string(nil), rgArgs...), args...) }
	fd := func(args ...string) []string { return append(append([]string(nil), fdArgs...), args...) }
	goTree := func(b *bench) string { return b.cfg.goroot }
	nodeTree := func(b *bench) (string, error) {
		nt, err := b.nodeTree()
		return nt.Dir, err
	}
	goRoot := func(b *bench) (string, error) { return goTree(b), nil }
	rows := []scenario{
		{name: "grep count `" + patCount + "` (Go tree)", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.8},
			peer: "rg -c", bins: []string{"rg"},
			run: callVsPeer(goRoot, "tools/grep", map[string]any{"pattern": patCount, "outputMode": "count", "headLimit": wideHeadLimit}, rg("-c", patCount), checkCounts)},
		{name: "grep filesWithMatches `" + patFiles + "` (Go tree)", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.8},
			peer: "rg -l", bins: []string{"rg"},
			run: callVsPeer(goRoot, "tools/grep", map[string]any{"pattern": patFiles, "headLimit": wideHeadLimit}, rg("-l", patFiles), checkFiles)},
		{name: "grep content caseInsensitive `" + patFold + "` (Go tree)", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.8},
			peer: "rg -i -n", bins: []string{"rg"},
			run: callVsPeer(goRoot, "tools/grep", map[string]any{"pattern": patFold, "outputMode": "content", "caseInsensitive": true, "headLimit": wideHeadLimit}, rg("-i", "-n", patFold), checkContent)},
		{name: "grep newest-first first 200 `" + patNewest + "` content (Go tree)", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.5},
			peer: "rg --sortr=modified -n | head -200", bins: []string{"rg"},
			run: callVsPeer(goRoot, "tools/grep", map[string]any{"pattern": patNewest, "outputMode": "content", "headLimit": limits.GrepDefaultHeadLimit},
				[]string{"bash", "-c", strings.Join(rg("--sortr=modified", "-n", "'"+patNewest+"'"), " ") + fmt.Sprintf(" | head -%d", limits.GrepDefaultHeadLimit)}, checkFirst(limits.GrepDefaultHeadLimit))},
		{name: "glob `**/*.go` (Go tree)", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.5},
			peer: "fdfind -t f -e go", bins: []string{"fdfind"},
			run: callVsPeer(goRoot, "tools/glob", map[string]any{"pattern": "**/*.go"}, fd("-e", "go"), checkGlob)},
		{name: "grep weak literal `" + patWeak + "` count (Go tree)", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.8},
			peer: "rg -c", bins: []string{"rg"},
			run: callVsPeer(goRoot, "tools/grep", map[string]any{"pattern": patWeak, "outputMode": "count", "headLimit": wideHeadLimit}, rg("-c", patWeak), checkCounts)},
		{name: "grep no literal `" + patNoLit + "` count (Go tree)", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.8},
			peer: "rg -c", bins: []string{"rg"},
			run: callVsPeer(goRoot, "tools/grep", map[string]any{"pattern": patNoLit, "outputMode": "count", "headLimit": wideHeadLimit}, rg("-c", patNoLit), checkCounts)},
		{name: "grep filesWithMatches, node_modules ignored (generated tree)", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.5},
			peer: "rg -l", bins: []string{"rg"},
			run: callVsPeer(nodeTree, "tools/grep", map[string]any{"pattern": regexp.QuoteMeta(nodeNeedle), "headLimit": wideHeadLimit}, rg("-l", regexp.QuoteMeta(nodeNeedle)), checkFiles)},
		{name: "grep filesWithMatches, explicit path into ignored node_modules", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.5},
			peer: "rg -l … node_modules", bins: []string{"rg"},
			run: callVsPeer(nodeTree, "tools/grep", map[string]any{"pattern": regexp.QuoteMeta(nodeNeedle), "path": "node_modules", "headLimit": wideHeadLimit}, rg("-l", regexp.QuoteMeta(nodeNeedle), "node_modules"), checkFiles)},
		{name: "glob `**/*.js`, node_modules ignored (generated tree)", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.5},
			peer: "fdfind -t f -e js", bins: []string{"fdfind"},
			run: callVsPeer(nodeTree, "tools/glob", map[string]any{"pattern": "**/*.js"}, fd("-e", "js"), checkGlob)},
	}
	return append(append(rows, linuxRows(rg, fd)...), moreRows()...)
}

// Patterns of the Linux-tree rows (issue 14's table).
const (
	linuxLit   = `PM_RESUME`
	linuxWord  = `\w+_RESUME`
	linuxNoLit = `[A-Za-z]{30}`
)

// linuxRows are the Linux-tree rows: each query warm (a long-lived server
// whose file table is built) and cold (the first call of a fresh server),
// and the table's memory.
func linuxRows(rg, fd func(...string) []string) []scenario {
	type query struct {
		name, peer string
		method     string
		params     map[string]any
		argv       []string
		check      func(json.RawMessage, []byte) string
		warm, cold float64 // goals; 0: none
		noIndex    float64 // goal of the warm-table row on a server with no index; 0: no row
	}
	qs := []query{
		{"grep count `" + linuxLit + "`", "rg -c", "tools/grep", map[string]any{"pattern": linuxLit, "outputMode": "count", "headLimit": wideHeadLimit}, rg("-c", linuxLit), checkCounts, 0.7, 1.0, 0.6},
		{"grep count caseInsensitive `" + linuxLit + "`", "rg -i -c", "tools/grep", map[string]any{"pattern": linuxLit, "caseInsensitive": true, "outputMode": "count", "headLimit": wideHeadLimit}, rg("-i", "-c", linuxLit), checkCounts, 0.7, 1.0, 0.6},
		{"grep filesWithMatches `" + linuxWord + "`", "rg -l", "tools/grep", map[string]any{"pattern": linuxWord, "headLimit": wideHeadLimit}, rg("-l", linuxWord), checkFiles, 0.7, 1.0, 0.6},
		// What a host sends by default (filesWithMatches, headLimit 200): a
		// first call searches while it walks all the same (issue 35).
		{"grep filesWithMatches `" + linuxLit + "`, default headLimit", "rg -l", "tools/grep", map[string]any{"pattern": linuxLit}, rg("-l", linuxLit), checkFiles, 0, 1.0, 0},
		{"grep no literal `" + linuxNoLit + "` count", "rg -c", "tools/grep", map[string]any{"pattern": linuxNoLit, "outputMode": "count", "headLimit": wideHeadLimit}, rg("-c", linuxNoLit), checkCounts, 1.2, 0, 0},
		{"glob `**/*.c`", "fdfind -t f -e c", "tools/glob", map[string]any{"pattern": "**/*.c"}, fd("-e", "c"), checkGlob, 0.2, 1.3, 0},
	}
	bins := func(q query) []string { return []string{strings.Fields(q.peer)[0], linuxPackage} }
	goalOf := func(limit float64) goal {
		if limit == 0 {
			return goal{}
		}
		return goal{kind: ratioAtMost, limit: limit}
	}
	var rows []scenario
	for _, q := range qs {
		rows = append(rows,
			scenario{name: q.name + " (Linux tree), warm", driven: drivenLongLived, unit: "ms", goal: goalOf(q.warm), peer: q.peer, bins: bins(q),
				run: needsLinux(callVsPeer(linuxRoot, q.method, q.params, q.argv, q.check))},
			scenario{name: q.name + " (Linux tree), cold", driven: drivenFreshPerCall, unit: "ms", goal: goalOf(q.cold), peer: q.peer, bins: bins(q),
				run: needsLinux(noted("a fresh server per run, each on an empty data dir of its own (no index, no file table)", coldCallVsPeer(linuxRoot, q.method, q.params, q.argv, q.check)))})
		if q.noIndex > 0 {
			rows = append(rows, scenario{name: q.name + " (Linux tree), fresh tree, warm table, no index yet", driven: drivenLongLived, unit: "ms", goal: goalOf(q.noIndex), peer: q.peer, bins: bins(q),
				run: needsLinux(noted("a server whose data dir cannot hold an index; its first call (untimed) built the file table", noIndexCallVsPeer(linuxRoot, q.method, q.params, q.argv, q.check)))})
		}
	}
	return append(rows, scenario{name: "file table memory (Linux tree): VmRSS after the first glob − after initialize", driven: drivenFresh, unit: "MB",
		goal: goal{kind: valueAtMost, limit: 25}, bins: []string{linuxPackage}, run: needsLinux(tableMemory)})
}

// moreRows are the rows after the Linux rows.
func moreRows() []scenario {
	return append([]scenario{
		{name: "read last page of the big file, cold", driven: drivenFreshPerCall, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.5},
			peer: "wc -l", bins: []string{"wc"}, run: readCold},
		{name: "read last page of the big file, warm", driven: drivenLongLived, unit: "ms", goal: goal{kind: valueBelow, limit: 5},
			run: readWarm},
		{name: rowBash, driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.3},
			peer: "same pipeline > /dev/null", bins: []string{"bash", "head", "tr", "fold"}, run: bashPipeline},
		{name: "bash 1 GB pipeline through tools/bash, vs a peer whose output is read", driven: drivenLongLived, unit: "ms",
			peer: "same pipeline | cat > /dev/null", bins: []string{"bash", "head", "tr", "fold", "cat"}, run: bashReader},
		{name: rowRSS, driven: drivenLongLived, unit: "MB", goal: goal{kind: valueBelow, limit: 64},
			run: bashRSS},
		{name: rowHeavyRSS, driven: drivenFresh, unit: "MB", goal: goal{kind: valueAtMost, limit: heavyGoalMB},
			run: heavyRSS},
		{name: fmt.Sprintf("cancel a %d-process tree → reply, all dead", cancelProcs), driven: drivenLongLived, unit: "ms", goal: goal{kind: valueAtMost, limit: 50},
			run: cancelTree50},
		{name: "round trip of tools/list", driven: drivenLongLived, unit: "ms", run: roundTrip},
		{name: "calls/second on one connection (tools/list, 16 in flight)", driven: drivenLongLived, unit: "calls/s", run: callsPerSecond},
		{name: "start-up to initialize reply", driven: drivenFresh, unit: "ms", run: startup},
		{name: "harness self-check: `rg -c " + patCount + "` timed here vs by hyperfine", driven: "peer only", unit: "ms", goal: goal{kind: ratioWithin, lo: 0.8, limit: 1.25},
			peer: "hyperfine -N", bins: []string{"rg", "hyperfine"}, run: hyperfineCheck},
	}, append(append(append(append(processRowsAll(), sessionRows()...), sandboxRows()...), indexScenarios()...), encodingScenarios()...)...)
}

// runPeer runs argv in dir and returns its wall time and stdout. rg's
// exit status 1 (nothing matched) is not an error.
func runPeer(dir string, argv []string) (time.Duration, []byte, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	errTail := &tailBuffer{max: limits.KB}
	cmd.Stdout, cmd.Stderr = &out, errTail
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && argv[0] == "rg" {
		err = nil
	}
	if err != nil {
		return d, nil, fmt.Errorf("peer %s: %w (stderr: %s)", strings.Join(argv, " "), err, errTail)
	}
	return d, out.Bytes(), nil
}

// interleave runs a and p alternately n times after one untimed warm-up of
// each (A B A B …, so drift hits both alike). p may be nil.
func interleave(n int, a, p func() (time.Duration, error)) (as, ps []time.Duration, err error) {
	for i := -1; i < n; i++ {
		d, err := a()
		if err != nil {
			return nil, nil, err
		}
		if i >= 0 {
			as = append(as, d)
		}
		if p == nil {
			continue
		}
		if d, err = p(); err != nil {
			return nil, nil, err
		}
		if i >= 0 {
			ps = append(ps, d)
		}
	}
	return as, ps, nil
}

// setFigures stores the samples and their medians in r.
func setFigures(r *Row, as, ps []time.Duration) {
	r.Samples, r.PeerSamples = millis(as), millis(ps)
	r.ToolrpcValue, r.PeerValue = median(r.Samples), median(r.PeerSamples)
	r.Runs = len(as)
	r.measured = true
}

// callVsPeer measures a tool call on the long-lived server of a root
// against a peer command run in that root; check compares the two outputs
// of the last run and returns a note when they disagree.
func callVsPeer(root func(*bench) (string, error), method string, params map[string]any, argv []string, check func(res json.RawMessage, peer []byte) string) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		dir, err := root(b)
		if err != nil {
			return err
		}
		s, err := b.longLived(dir)
		if err != nil {
			return err
		}
		return timeCallVsPeer(b, r, dir, func() (json.RawMessage, time.Duration, error) { return s.call(method, params) }, argv, check)
	}
}

// noIndexCallVsPeer is callVsPeer on the run's server on root whose data
// dir cannot hold a content index (a file stands where its directory would
// be): every call is answered from the file table by reading the files, as
// on a fresh tree before its index is built.
func noIndexCallVsPeer(root func(*bench) (string, error), method string, params map[string]any, argv []string, check func(res json.RawMessage, peer []byte) string) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		dir, err := root(b)
		if err != nil {
			return err
		}
		key := dir + " (no index)"
		s := b.servers[key]
		if s == nil {
			blocked := filepath.Join(b.stateDir, "no-index")
			if err := os.WriteFile(blocked, nil, 0o600); err != nil {
				return err
			}
			if s, err = startServer(serverConfig{bin: b.bin, root: dir, dataDir: filepath.Join(blocked, "data")}); err != nil {
				return err
			}
			b.servers[key] = s
		}
		return timeCallVsPeer(b, r, dir, func() (json.RawMessage, time.Duration, error) { return s.call(method, params) }, argv, check)
	}
}

// timeCallVsPeer times call against argv run in dir, interleaved (A B A B),
// stores the figures in r, and notes what check finds different between
// the outputs of the last run. Every row that times a call against a peer
// does it here.
func timeCallVsPeer(b *bench, r *Row, dir string, call func() (json.RawMessage, time.Duration, error), argv []string, check func(res json.RawMessage, peer []byte) string) error {
	var res json.RawMessage
	var out []byte
	a := func() (time.Duration, error) {
		raw, d, err := call()
		res = raw
		return d, err
	}
	var p func() (time.Duration, error)
	if b.peerReady(r) {
		p = func() (time.Duration, error) {
			d, o, err := runPeer(dir, argv)
			out = o
			return d, err
		}
	}
	as, ps, err := interleave(b.cfg.runs, a, p)
	if err != nil {
		return err
	}
	setFigures(r, as, ps)
	if p != nil && check != nil {
		r.Note = check(res, out)
	}
	return nil
}

// peerLines splits peer output into non-empty lines without a "./" prefix.
func peerLines(out []byte) []string {
	var ls []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimPrefix(l, "./"); l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

// diffSets describes the members only one side holds (at most 3 each).
func diffSets(tool, peer []string) string {
	in := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	tm, pm := in(tool), in(peer)
	var onlyT, onlyP []string
	for _, x := range tool {
		if !pm[x] {
			onlyT = append(onlyT, x)
		}
	}
	for _, x := range peer {
		if !tm[x] {
			onlyP = append(onlyP, x)
		}
	}
	sort.Strings(onlyT)
	sort.Strings(onlyP)
	cut := func(xs []string) string {
		if len(xs) > 3 {
			return strings.Join(xs[:3], ", ") + fmt.Sprintf(" and %d more", len(xs)-3)
		}
		return strings.Join(xs, ", ")
	}
	var parts []string
	if len(onlyT) > 0 {
		parts = append(parts, "only toolrpc has "+cut(onlyT))
	}
	if len(onlyP) > 0 {
		parts = append(parts, "only the peer has "+cut(onlyP))
	}
	return strings.Join(parts, "; ")
}

func checkCounts(res json.RawMessage, out []byte) string {
	var g struct {
		Counts []struct {
			Path  string `json:"path"`
			Count int    `json:"count"`
		} `json:"counts"`
		Count     int  `json:"count"`
		Truncated bool `json:"truncated"`
	}
	if err := json.Unmarshal(res, &g); err != nil {
		return "result not understood: " + err.Error()
	}
	var tool, peer []string
	for _, c := range g.Counts {
		tool = append(tool, fmt.Sprintf("%s:%d", c.Path, c.Count))
	}
	total := 0
	for _, l := range peerLines(out) {
		peer = append(peer, l)
		if i := strings.LastIndexByte(l, ':'); i >= 0 {
			n, _ := strconv.Atoi(l[i+1:])
			total += n
		}
	}
	if g.Count == total && len(tool) == len(peer) && !g.Truncated {
		return ""
	}
	return fmt.Sprintf("toolrpc counted %d lines in %d files (truncated=%v), the peer %d in %d: %s", g.Count, len(tool), g.Truncated, total, len(peer), diffSets(tool, peer))
}

func checkFiles(res json.RawMessage, out []byte) string {
	var g struct {
		Files     []string `json:"files"`
		Truncated bool     `json:"truncated"`
	}
	if err := json.Unmarshal(res, &g); err != nil {
		return "result not understood: " + err.Error()
	}
	peer := peerLines(out)
	if len(g.Files) == len(peer) && diffSets(g.Files, peer) == "" && !g.Truncated {
		return ""
	}
	return fmt.Sprintf("toolrpc listed %d files (truncated=%v), the peer %d: %s", len(g.Files), g.Truncated, len(peer), diffSets(g.Files, peer))
}

func checkContent(res json.RawMessage, out []byte) string {
	var g struct {
		Count     int  `json:"count"`
		Truncated bool `json:"truncated"`
	}
	if err := json.Unmarshal(res, &g); err != nil {
		return "result not understood: " + err.Error()
	}
	if n := len(peerLines(out)); n != g.Count || g.Truncated {
		return fmt.Sprintf("toolrpc returned %d matching lines (truncated=%v), the peer %d", g.Count, g.Truncated, n)
	}
	return ""
}

// checkFirst checks that both sides returned the first n matching lines.
func checkFirst(n int) func(json.RawMessage, []byte) string {
	return func(res json.RawMessage, out []byte) string {
		var g struct {
			Count int `json:"count"`
		}
		if err := json.Unmarshal(res, &g); err != nil {
			return "result not understood: " + err.Error()
		}
		if p := len(peerLines(out)); g.Count != n || p != n {
			return fmt.Sprintf("expected %d lines from each side: toolrpc %d, the peer %d", n, g.Count, p)
		}
		return ""
	}
}

var globTotal = regexp.MustCompile(`of (\d+) files`)

// checkGlob compares the number of files the glob reports with the peer's
// listing (toolrpc returns only the newest limits.GlobDefaultLimit).
func checkGlob(res json.RawMessage, out []byte) string {
	var g struct {
		Count     int    `json:"count"`
		Truncated bool   `json:"truncated"`
		Notice    string `json:"notice"`
	}
	if err := json.Unmarshal(res, &g); err != nil {
		return "result not understood: " + err.Error()
	}
	total := g.Count
	if m := globTotal.FindStringSubmatch(g.Notice); g.Truncated && m != nil {
		total, _ = strconv.Atoi(m[1])
	}
	if p := len(peerLines(out)); p != total {
		return fmt.Sprintf("toolrpc reports %d files, the peer lists %d", total, p)
	}
	return ""
}

// readParams are the params of the last default-size page of the big file.
func readParams(bf bigFile) map[string]any {
	off := bf.Lines - limits.ReadDefaultLimit + 1
	if off < 1 {
		off = 1
	}
	return map[string]any{"path": bf.Name, "offset": off}
}

// checkRead checks a last-page result of the big file.
func checkRead(res json.RawMessage, bf bigFile) error {
	var g struct {
		TotalLines int64 `json:"totalLines"`
		LineCount  int64 `json:"lineCount"`
		Truncated  bool  `json:"truncated"`
	}
	if err := json.Unmarshal(res, &g); err != nil {
		return fmt.Errorf("read result: %w", err)
	}
	if want := min(bf.Lines, limits.ReadDefaultLimit); g.TotalLines != bf.Lines || g.LineCount != want || g.Truncated {
		return fmt.Errorf("read last page: totalLines %d lineCount %d truncated %v, want %d, %d, false", g.TotalLines, g.LineCount, g.Truncated, bf.Lines, want)
	}
	return nil
}

func readCold(b *bench, r *Row) error {
	bf, err := b.bigFile()
	if err != nil {
		return err
	}
	var res json.RawMessage
	a := func() (time.Duration, error) {
		s, err := b.fresh(bf.Dir)
		if err != nil {
			return 0, err
		}
		var d time.Duration
		res, d, err = s.call("tools/read", readParams(bf))
		if cerr := s.close(); err == nil {
			err = cerr
		}
		return d, err
	}
	var p func() (time.Duration, error)
	var out []byte
	if b.peerReady(r) {
		p = func() (time.Duration, error) {
			var d time.Duration
			d, out, err = runPeer(bf.Dir, []string{"wc", "-l", bf.Name})
			return d, err
		}
	}
	as, ps, err := interleave(b.cfg.runs, a, p)
	if err != nil {
		return err
	}
	setFigures(r, as, ps)
	if err := checkRead(res, bf); err != nil {
		return err
	}
	r.Note = fmt.Sprintf("%d MB, %d lines", bf.Bytes/1000000, bf.Lines)
	if p != nil && !strings.HasPrefix(string(out), strconv.FormatInt(bf.Lines, 10)+" ") {
		r.Note += fmt.Sprintf("; wc -l says %q", strings.TrimSpace(string(out)))
	}
	return nil
}

func readWarm(b *bench, r *Row) error {
	bf, err := b.bigFile()
	if err != nil {
		return err
	}
	s, err := b.longLived(bf.Dir)
	if err != nil {
		return err
	}
	var res json.RawMessage
	as, _, err := interleave(b.cfg.runs, func() (time.Duration, error) {
		var d time.Duration
		res, d, err = s.call("tools/read", readParams(bf))
		return d, err
	}, nil)
	if err != nil {
		return err
	}
	setFigures(r, as, nil)
	return checkRead(res, bf)
}

// pipeline is the bash row's command for n bytes (SPEC issue: 1e9).
func pipeline(n int64) string {
	return fmt.Sprintf(`head -c %d /dev/zero | tr '\0' a | fold -w 100`, n)
}

func bashPipeline(b *bench, r *Row) error {
	root := b.cfg.goroot
	s, err := b.fresh(root) // its own server, so VmHWM is this row's alone
	if err != nil {
		return err
	}
	defer s.close()
	n := b.cfg.bashBytes
	cmd := pipeline(n)
	var res json.RawMessage
	a := func() (time.Duration, error) {
		var d time.Duration
		res, d, err = s.call("tools/bash", map[string]any{"command": cmd, "timeout": limits.BashMaxTimeoutSeconds})
		return d, err
	}
	var p func() (time.Duration, error)
	var cats []time.Duration // the same pipeline read by cat, beside each peer run
	if b.peerReady(r) {
		p = func() (time.Duration, error) {
			d, _, err := runPeer(root, []string{"bash", "-c", cmd + " | cat >/dev/null"})
			if err != nil {
				return 0, err
			}
			cats = append(cats, d)
			d, _, err = runPeer(root, []string{"bash", "-c", cmd + " >/dev/null"})
			return d, err
		}
	}
	as, ps, err := interleave(b.cfg.runs, a, p)
	if err != nil {
		return err
	}
	setFigures(r, as, ps)
	if len(cats) > 1 {
		b.bashReader = &Row{Samples: r.Samples, PeerSamples: millis(cats[1:])} // cats[0] was the warm-up
	}
	var g struct {
		StdoutInfo struct {
			Bytes int64 `json:"bytes"`
		} `json:"stdoutInfo"`
		Truncated bool `json:"truncated"`
	}
	if err := json.Unmarshal(res, &g); err != nil {
		return fmt.Errorf("bash result: %w", err)
	}
	want := n + (n+99)/100 - 1 // fold adds a newline between 100-byte lines, none at the end
	r.Note = fmt.Sprintf("%d MB through the capture", n/1000000)
	if g.StdoutInfo.Bytes != want || !g.Truncated {
		r.Status = statusMissed
		r.Note += fmt.Sprintf("; stdoutInfo.bytes %d (want %d), truncated %v", g.StdoutInfo.Bytes, want, g.Truncated)
	}
	rss, err := statusBytes(s.pid(), "VmHWM")
	if err != nil {
		return err
	}
	b.bashRSS = rss
	return nil
}

func bashReader(b *bench, r *Row) error {
	if b.bashReader == nil {
		return fmt.Errorf("needs the %q row", rowBash)
	}
	r.Samples, r.PeerSamples = b.bashReader.Samples, b.bashReader.PeerSamples
	r.ToolrpcValue, r.PeerValue = median(r.Samples), median(r.PeerSamples)
	r.Runs, r.measured = len(r.Samples), true
	r.Note = "same toolrpc runs as the row above; the peer pays for a reader of its output too, so this ratio is toolrpc's own overhead"
	return nil
}

func bashRSS(b *bench, r *Row) error {
	if b.bashRSS == 0 {
		return fmt.Errorf("needs the %q row", rowBash)
	}
	r.ToolrpcValue, r.Runs, r.measured = float64(b.bashRSS)/(1<<20), 1, true
	r.Note = "VmHWM of the bash row's server after all its runs"
	return nil
}

func cancelTree50(b *bench, r *Row) error {
	s, err := b.longLived(b.cfg.goroot)
	if err != nil {
		return err
	}
	var ds []time.Duration
	survivors := 0
	for i := 0; i < b.cfg.cancelRuns; i++ {
		mark := fmt.Sprintf("toolrpc-bench-%d-%d", os.Getpid(), time.Now().UnixNano())
		ctx, cancel := context.WithCancel(context.Background())
		type outcome struct {
			at  time.Time
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			_, _, err := s.callContext(ctx, "tools/bash", map[string]any{"command": cancelTree, "env": map[string]string{markEnv: mark}})
			done <- outcome{time.Now(), err}
		}()
		deadline := time.Now().Add(time.Minute)
		for len(markHolders(mark)) < cancelProcs {
			if time.Now().After(deadline) {
				cancel()
				return fmt.Errorf("cancel: the tree never reached %d processes (%d)", cancelProcs, len(markHolders(mark)))
			}
			time.Sleep(5 * time.Millisecond)
		}
		t0 := time.Now()
		cancel()
		o := <-done
		ds = append(ds, o.at.Sub(t0))
		var e *client.Error
		if !errors.As(o.err, &e) || e.Kind != "CANCELLED" {
			return fmt.Errorf("cancel: got %v, want a CANCELLED error", o.err)
		}
		survivors += len(markHolders(mark))
	}
	setFigures(r, ds, nil)
	r.Note = fmt.Sprintf("median of %d cancels", len(ds))
	if survivors > 0 {
		r.Status = statusMissed
		r.Note += fmt.Sprintf("; %d processes survived their reply", survivors)
	}
	return nil
}

func roundTrip(b *bench, r *Row) error {
	s, err := b.longLived(b.cfg.goroot)
	if err != nil {
		return err
	}
	n := b.cfg.rttCalls
	as, _, err := interleave(n, func() (time.Duration, error) {
		_, d, err := s.call("tools/list", nil)
		return d, err
	}, nil)
	if err != nil {
		return err
	}
	setFigures(r, as, nil)
	r.Note = fmt.Sprintf("median of %d sequential calls", n)
	return nil
}

// inFlight is how many calls the calls/second row keeps outstanding.
const inFlight = 16

func callsPerSecond(b *bench, r *Row) error {
	s, err := b.longLived(b.cfg.goroot)
	if err != nil {
		return err
	}
	n := b.cfg.rttCalls * 10
	var rates []float64
	for run := 0; run < b.cfg.runs; run++ {
		var next atomic.Int64
		errs := make(chan error, inFlight)
		t0 := time.Now()
		for range inFlight {
			go func() {
				for next.Add(1) <= int64(n) {
					if _, _, err := s.call("tools/list", nil); err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for range inFlight {
			if err := <-errs; err != nil {
				return err
			}
		}
		rates = append(rates, float64(n)/time.Since(t0).Seconds())
	}
	r.Samples, r.ToolrpcValue, r.Runs, r.measured = rates, median(rates), len(rates), true
	r.Note = fmt.Sprintf("%d calls per run", n)
	return nil
}

func startup(b *bench, r *Row) error {
	as, _, err := interleave(b.cfg.runs, func() (time.Duration, error) {
		s, err := b.fresh(b.cfg.goroot)
		if err != nil {
			return 0, err
		}
		return s.startup, s.close()
	}, nil)
	if err != nil {
		return err
	}
	setFigures(r, as, nil)
	r.Note = "process start → initialize reply"
	return nil
}

func hyperfineCheck(b *bench, r *Row) error {
	if !b.peerReady(r) {
		return nil
	}
	argv := append(append([]string(nil), rgArgs...), "-c", patCount)
	js := filepath.Join(b.stateDir, "hyperfine.json")
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + a + "'"
	}
	// One hyperfine run per turn, so its figure interleaves with ours; its
	// output goes to a pipe, as ours does.
	hf := []string{"hyperfine", "-N", "--style", "none", "--runs", "1", "--output", "pipe", "--export-json", js, strings.Join(quoted, " ")}
	as, ps, err := interleave(b.cfg.runs, func() (time.Duration, error) {
		d, _, err := runPeer(b.cfg.goroot, argv)
		return d, err
	}, func() (time.Duration, error) {
		if _, _, err := runPeer(b.cfg.goroot, hf); err != nil {
			return 0, err
		}
		data, err := os.ReadFile(js)
		if err != nil {
			return 0, fmt.Errorf("hyperfine: %w", err)
		}
		var h struct {
			Results []struct {
				Mean float64 `json:"mean"`
			} `json:"results"`
		}
		if err := json.Unmarshal(data, &h); err != nil || len(h.Results) != 1 {
			return 0, fmt.Errorf("hyperfine: read %s: %v", js, err)
		}
		return time.Duration(h.Results[0].Mean * float64(time.Second)), nil
	})
	if err != nil {
		return err
	}
	setFigures(r, as, ps)
	r.Note = "the toolrpc column is this command's own timing of the peer, interleaved with hyperfine's; near 1.0× means the peer figures above are not inflated by the harness"
	return nil
}
