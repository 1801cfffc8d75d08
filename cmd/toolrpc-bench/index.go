package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/internal/contentindex"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// The content index rows (issue 15): a fresh server per tree with its own
// dataDir builds the index (throttled, as in production), then every query
// row runs against that server with the index ready, beside rg. The
// no-literal row is compared with a server whose dataDir cannot hold an
// index (the scan path).

// indexTree is one tree the index rows search.
type indexTree struct {
	name    string // "Linux tree", "Go tree"
	dir     func(*bench) (string, error)
	literal string // a symbol in fewer than 100 files
	regex   string // a regex with a required literal
	noLit   string // a regex with no usable trigram
	linux   bool   // the Linux rows' tree: needs the linux-source package
	// Issue 27's rows, on trees that set them: a word-bounded regex with a
	// rare required literal, and a literal in most files.
	words, broad string
}

// indexedServer is a tree's server with its index built.
type indexedServer struct {
	s, scan               *server
	data                  string // the data dir of s: its index and file table
	buildWall, buildCPU   time.Duration
	indexBytes, textBytes int64
	idleRSS, builderHWM   int64
	files                 int
}

// indexBuildWait bounds the wait for a build; it is not a speed goal.
// indexPoll is how often the wait asks.
const (
	indexBuildWait = 30 * time.Minute
	indexPoll      = 100 * time.Millisecond
)

func indexTrees() []indexTree {
	return []indexTree{
		{name: "Linux tree", linux: true, dir: func(b *bench) (string, error) {
			if b.cfg.indexLinux != "" {
				return b.cfg.indexLinux, nil
			}
			return linuxRoot(b)
		}, literal: "PM_RESUME", regex: `\w+_RESUME`, noLit: `[A-Za-z]{30}`, words: `\bsched_[a-z]+_entity\b`, broad: "return"},
		{name: "Go tree", dir: func(b *bench) (string, error) { return b.cfg.goroot, nil },
			literal: "nil pointer dereference", regex: `func \w+Locked\(`, noLit: `[0-9]{10}`},
	}
}

// indexScenarios returns the index rows of every tree.
func indexScenarios() []scenario {
	rg := func(args ...string) []string { return append(append([]string(nil), rgArgs...), args...) }
	var out []scenario
	for _, t := range indexTrees() {
		t := t
		lit := regexpQuote(t.literal)
		q := func(params map[string]any) func(*bench, *Row, *indexedServer) (map[string]any, error) {
			return func(*bench, *Row, *indexedServer) (map[string]any, error) { return params, nil }
		}
		rows := []scenario{
			{name: "content index build CPU (" + t.name + ")", driven: drivenFresh, unit: "s", goal: goal{kind: valueAtMost, limit: 60},
				run: indexRow(t, indexBuildRow)},
			{name: "content index size, % of the text indexed (" + t.name + ")", driven: drivenFresh, unit: "%", goal: goal{kind: valueAtMost, limit: limits.IndexQuotaPercent},
				run: indexRow(t, indexSizeRow)},
			{name: "content index builder peak RSS (" + t.name + ")", driven: drivenFresh, unit: "MB", goal: goal{kind: valueAtMost, limit: 128},
				run: indexRow(t, indexBuilderRSSRow)},
			{name: "indexed grep count `" + lit + "` (" + t.name + ")", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.05},
				peer: "rg -c", bins: []string{"rg"},
				run: indexVsPeer(t, q(map[string]any{"pattern": lit, "outputMode": "count", "headLimit": wideHeadLimit}), rg("-c", lit), checkCounts)},
			{name: "indexed grep content `" + lit + "` (" + t.name + ")", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.05},
				peer: "rg -n", bins: []string{"rg"},
				run: indexVsPeer(t, q(map[string]any{"pattern": lit, "outputMode": "content", "headLimit": wideHeadLimit}), rg("-n", lit), checkContent)},
			{name: "indexed grep -i count `" + lit + "` (" + t.name + ")", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.1},
				peer: "rg -i -c", bins: []string{"rg"},
				run: indexVsPeer(t, q(map[string]any{"pattern": lit, "outputMode": "count", "caseInsensitive": true, "headLimit": wideHeadLimit}), rg("-i", "-c", lit), checkCounts)},
			{name: "indexed grep files `" + t.regex + "` (" + t.name + ")", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.1},
				peer: "rg -l", bins: []string{"rg"},
				run: indexVsPeer(t, q(map[string]any{"pattern": t.regex, "headLimit": wideHeadLimit}), rg("-l", t.regex), checkFiles)},
			{name: "indexed grep no literal `" + t.noLit + "` count vs the scan path (" + t.name + ")", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.05},
				peer: "same server, no index",
				run:  indexVsScan(t, map[string]any{"pattern": t.noLit, "outputMode": "count", "headLimit": wideHeadLimit})},
			{name: "indexed grep -i count `" + lit + "` ÷ the same exact query (" + t.name + ")", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.3},
				peer: "same server, exact query",
				run: indexVsSelf(t, map[string]any{"pattern": lit, "outputMode": "count", "caseInsensitive": true, "headLimit": wideHeadLimit},
					map[string]any{"pattern": lit, "outputMode": "count", "headLimit": wideHeadLimit})},
			{name: "indexed grep no literal `" + t.noLit + "` count vs rg (" + t.name + ")", driven: drivenLongLived, unit: "ms",
				peer: "rg -c", bins: []string{"rg"},
				run: indexVsPeer(t, q(map[string]any{"pattern": t.noLit, "outputMode": "count", "headLimit": wideHeadLimit}), rg("-c", t.noLit), checkCounts)},
			{name: "new server on a known tree, first grep count `" + lit + "` (" + t.name + ")", driven: drivenFreshPerCall, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.1},
				peer: "rg -c", bins: []string{"rg"},
				run: knownTreeVsPeer(t, map[string]any{"pattern": lit, "outputMode": "count", "headLimit": wideHeadLimit}, rg("-c", lit), checkCounts)},
			{name: "serving RSS over idle, index mapped (" + t.name + ")", driven: drivenLongLived, unit: "MB", goal: goal{kind: valueAtMost, limit: 64},
				run: indexRow(t, indexServingRSSRow)},
		}
		if t.words != "" {
			rows = append(rows,
				scenario{name: "indexed grep files `" + t.words + "` (" + t.name + ")", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.02},
					peer: "rg -l", bins: []string{"rg"},
					run: noted("the indexed server's files vs rg -l's", indexVsPeer(t, q(map[string]any{"pattern": t.words, "headLimit": wideHeadLimit}), rg("-l", t.words), checkFiles))},
				scenario{name: "indexed grep count broad literal `" + t.broad + "` (" + t.name + ")", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.5},
					peer: "rg -c", bins: []string{"rg"},
					run: broadCount(t, q(map[string]any{"pattern": t.broad, "outputMode": "count", "headLimit": wideHeadLimit}), rg("-c", t.broad))},
				scenario{name: "grep count `" + lit + "` while the index builds ÷ without a build (" + t.name + ")", driven: drivenFresh, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.1},
					peer: "a server with no index",
					run:  duringBuild(t, map[string]any{"pattern": lit, "outputMode": "count", "headLimit": wideHeadLimit})})
		}
		if t.linux {
			rows = append(rows, prewarmScenarios(t, lit, rg)...)
		}
		for _, r := range rows {
			if t.linux {
				r.bins = append(r.bins, linuxPackage)
				r.run = needsLinux(r.run)
			}
			out = append(out, r)
		}
	}
	return out
}

func regexpQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `.`, `\.`, `(`, `\(`, `)`, `\)`, `[`, `\[`, `*`, `\*`, `+`, `\+`, `?`, `\?`, `{`, `\{`, `|`, `\|`, `^`, `\^`, `$`, `\$`)
	return r.Replace(s)
}

// indexed returns tree t's server with its index built, starting it and
// waiting for the build on first use.
func (b *bench) indexed(t indexTree) (*indexedServer, error) {
	if is := b.indexServers[t.name]; is != nil {
		return is, nil
	}
	dir, err := t.dir(b)
	if err != nil {
		return nil, err
	}
	data, err := os.MkdirTemp(b.stateDir, "index-")
	if err != nil {
		return nil, err
	}
	s, err := startServer(serverConfig{bin: b.bin, root: dir, dataDir: data})
	if err != nil {
		return nil, err
	}
	is := &indexedServer{s: s, data: data}
	b.indexServers[t.name] = is
	if is.idleRSS, err = statusBytes(s.pid(), "VmRSS"); err != nil {
		return nil, err
	}
	cpu0, err := cpuTime(s.pid())
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	// A grep of one small file starts the build of the whole root and
	// costs nothing itself.
	if _, _, err := s.call("tools/grep", map[string]any{"pattern": "zq_kick_zq", "path": firstFile(dir)}); err != nil {
		return nil, err
	}
	fmt.Fprintf(b.log, "  building the content index of %s (one throttled worker)…\n", dir)
	idx := filepath.Join(contentindex.Dir(data, dir), "index")
	for {
		if _, err := os.Stat(idx); err == nil {
			break
		}
		if strings.Contains(s.stderr.String(), "no content index") || time.Since(t0) > indexBuildWait {
			return nil, fmt.Errorf("index of %s not built: %s", dir, s.stderr)
		}
		time.Sleep(indexPoll)
	}
	is.buildWall = time.Since(t0)
	cpu1, _ := cpuTime(s.pid())
	is.buildCPU = cpu1 - cpu0
	time.Sleep(time.Second) // the server maps the file right after the rename
	is.builderHWM, _ = statusBytes(s.pid(), "VmHWM")
	if fi, err := os.Stat(idx); err == nil {
		is.indexBytes = fi.Size()
	}
	is.textBytes, is.files = indexFigures(dir)
	// The scan path: a server whose dataDir cannot hold an index.
	blocked := filepath.Join(data, "not-a-dir")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		return nil, err
	}
	if is.scan, err = startServer(serverConfig{bin: b.bin, root: dir, dataDir: filepath.Join(blocked, "data")}); err != nil {
		return nil, err
	}
	return is, nil
}

// firstFile returns a regular file directly in dir (the build kick).
func firstFile(dir string) string {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Type().IsRegular() {
			return filepath.Join(dir, e.Name())
		}
	}
	return dir
}

// indexFigures returns the bytes and number of the files the index of dir
// holds as text: the regular files a grep of dir lists, up to
// limits.IndexMaxFileBytes (binary files included: a close upper bound).
func indexFigures(dir string) (textBytes int64, files int) {
	list, err := walk.Walk(context.Background(), walk.Options{Start: dir, Boundary: dir})
	if err != nil {
		return 0, 0
	}
	for _, f := range list {
		if f.Size <= limits.IndexMaxFileBytes && !walk.IsBinaryName(f.Abs) {
			textBytes += f.Size
			files++
		}
	}
	return textBytes, files
}

// indexedFor returns t's indexed server (nil with the error).
func indexedFor(b *bench, _ *Row, t indexTree) (*indexedServer, error) {
	return b.indexed(t)
}

// indexRow adapts a figure row of tree t.
func indexRow(t indexTree, fill func(*indexedServer, *Row)) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		is, err := indexedFor(b, r, t)
		if is == nil {
			return err
		}
		fill(is, r)
		r.Runs, r.measured = 1, true
		return nil
	}
}

func indexBuildRow(is *indexedServer, r *Row) {
	r.ToolrpcValue = is.buildCPU.Seconds()
	r.Note = fmt.Sprintf("%d files, %d MB of text; wall %.1f s at nice %d, paced to %d%% of one core",
		is.files, is.textBytes>>20, is.buildWall.Seconds(), limits.IndexBuildNice, limits.IndexBuildCPUPercent)
}

func indexSizeRow(is *indexedServer, r *Row) {
	if is.textBytes > 0 {
		r.ToolrpcValue = 100 * float64(is.indexBytes) / float64(is.textBytes)
	}
	r.Note = fmt.Sprintf("index %.1f MB", float64(is.indexBytes)/(1<<20))
}

func indexBuilderRSSRow(is *indexedServer, r *Row) {
	r.ToolrpcValue = float64(is.builderHWM) / (1 << 20)
	r.Note = "VmHWM of a fresh server whose only work was the build"
}

func indexServingRSSRow(is *indexedServer, r *Row) {
	rss, err := statusBytes(is.s.pid(), "VmRSS")
	if err != nil {
		r.Note = err.Error()
		return
	}
	r.ToolrpcValue = float64(rss-is.idleRSS) / (1 << 20)
	file, _ := statusBytes(is.s.pid(), "RssFile")
	anon, _ := statusBytes(is.s.pid(), "RssAnon")
	scan, _ := statusBytes(is.scan.pid(), "VmRSS")
	mb := func(v int64) float64 { return float64(v) / (1 << 20) }
	r.Note = fmt.Sprintf("VmRSS %.1f MB after the index rows (%.1f MB of it mapped index and binary pages, %.1f MB anonymous), %.1f MB idle before the build; "+
		"the scan-path server after its greps: %.1f MB", mb(rss), mb(file), mb(anon), mb(is.idleRSS), mb(scan))
}

// indexVsPeer times a grep on t's indexed server against a peer command.
func indexVsPeer(t indexTree, params func(*bench, *Row, *indexedServer) (map[string]any, error), argv []string, check func(json.RawMessage, []byte) string) func(*bench, *Row) error {
	return indexCallVsPeer(t, params, func(s *server, p map[string]any) func() (json.RawMessage, time.Duration, error) {
		return func() (json.RawMessage, time.Duration, error) { return s.call("tools/grep", p) }
	}, argv, check)
}

// indexCallVsPeer times the call grep makes of params on t's indexed
// server against a peer command.
func indexCallVsPeer(t indexTree, params func(*bench, *Row, *indexedServer) (map[string]any, error),
	grep func(*server, map[string]any) func() (json.RawMessage, time.Duration, error), argv []string, check func(json.RawMessage, []byte) string) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		is, err := indexedFor(b, r, t)
		if is == nil {
			return err
		}
		p, err := params(b, r, is)
		if err != nil {
			return err
		}
		dir, _ := t.dir(b)
		return timeCallVsPeer(b, r, dir, grep(is.s, p), argv, check)
	}
}

// pagedCounts returns a count grep of params on s that pages with offset
// while the result is truncated (its byte budget), the times summed and
// the pages merged into one answer; *pages is the number of calls of the
// last run.
func pagedCounts(pages *int) func(*server, map[string]any) func() (json.RawMessage, time.Duration, error) {
	return func(s *server, params map[string]any) func() (json.RawMessage, time.Duration, error) {
		return func() (json.RawMessage, time.Duration, error) {
			type page struct {
				Counts    []json.RawMessage `json:"counts"`
				Count     int               `json:"count"`
				Truncated bool              `json:"truncated"`
			}
			var all page
			var total time.Duration
			p := maps.Clone(params)
			for *pages = 1; ; *pages++ {
				p["offset"] = len(all.Counts)
				res, d, err := s.call("tools/grep", p)
				total += d
				if err != nil {
					return nil, total, err
				}
				var g page
				if err := json.Unmarshal(res, &g); err != nil {
					return nil, total, err
				}
				all.Counts = append(all.Counts, g.Counts...)
				all.Count += g.Count
				if !g.Truncated || len(g.Counts) == 0 {
					all.Truncated = g.Truncated
					break
				}
			}
			res, err := json.Marshal(all)
			return res, total, err
		}
	}
}

// indexVsScan times a grep on t's indexed server against the same grep on
// its scan-path server; both answers must be equal.
func indexVsScan(t indexTree, params map[string]any) func(*bench, *Row) error {
	return indexPair(t, params, params, func(is *indexedServer) *server { return is.scan }, "the indexed answer differs from the scan path's", "")
}

// indexVsSelf times a grep on t's indexed server against another grep
// (peerParams) on the same server; the answers may differ.
func indexVsSelf(t indexTree, params, peerParams map[string]any) func(*bench, *Row) error {
	return indexPair(t, params, peerParams, func(is *indexedServer) *server { return is.s }, "",
		"both calls on the same indexed server; the peer column is the exact (case-sensitive) query")
}

// indexPair times params on t's indexed server against peerParams on the
// server other picks. A non-empty differs is the note (and a missed row)
// when the answers differ; note is the row's note otherwise.
func indexPair(t indexTree, params, peerParams map[string]any, other func(*indexedServer) *server, differs, note string) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		is, err := indexedFor(b, r, t)
		if is == nil {
			return err
		}
		return timePair(b, r, is.s, params, other(is), peerParams, differs, note)
	}
}

// timePair times params on s against peerParams on peer, interleaved. A
// non-empty differs is the note (and a missed row) when the answers
// differ; note is the row's note otherwise.
func timePair(b *bench, r *Row, s *server, params map[string]any, peer *server, peerParams map[string]any, differs, note string) error {
	var a, p []byte
	as, ps, err := interleave(b.cfg.runs, func() (time.Duration, error) {
		res, d, err := s.call("tools/grep", params)
		a = res
		return d, err
	}, func() (time.Duration, error) {
		res, d, err := peer.call("tools/grep", peerParams)
		p = res
		return d, err
	})
	if err != nil {
		return err
	}
	setFigures(r, as, ps)
	r.Note = note
	if differs != "" && string(a) != string(p) {
		r.Status = statusMissed
		r.Note = differs
	}
	return nil
}

// duringBuild times a grep on a new server of tree t on an empty data dir
// of its own while that server builds the index (started by a grep of one
// file), against the same grep on a server whose data dir cannot hold an
// index; both answers must be equal, and the index must still be unbuilt
// after the last run.
func duringBuild(t indexTree, params map[string]any) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		dir, err := t.dir(b)
		if err != nil {
			return err
		}
		data, err := os.MkdirTemp(b.stateDir, "building-")
		if err != nil {
			return err
		}
		blocked := filepath.Join(data, "not-a-dir")
		if err := os.WriteFile(blocked, nil, 0o600); err != nil {
			return err
		}
		scan, err := startServer(serverConfig{bin: b.bin, root: dir, dataDir: filepath.Join(blocked, "data")})
		if err != nil {
			return err
		}
		defer scan.close()
		s, err := startServer(serverConfig{bin: b.bin, root: dir, dataDir: data})
		if err != nil {
			return err
		}
		defer s.close()
		if _, _, err := s.call("tools/grep", map[string]any{"pattern": "zq_kick_zq", "path": firstFile(dir)}); err != nil {
			return err
		}
		err = timePair(b, r, s, params, scan, params, "the answer during the build differs from the scan path's",
			"a new server on an empty data dir while it builds the index vs a server whose data dir cannot hold one, both warm, same query")
		if err != nil {
			return err
		}
		if _, serr := os.Stat(filepath.Join(contentindex.Dir(data, dir), "index")); serr == nil {
			r.Status = statusMissed
			r.Note = "the index was built before the last run: no figure during a build"
		}
		return nil
	}
}

// broadCount times a count grep on t's indexed server paged to the whole
// answer (see pagedCounts) against the peer.
func broadCount(t indexTree, params func(*bench, *Row, *indexedServer) (map[string]any, error), argv []string) func(*bench, *Row) error {
	var pages int
	run := indexCallVsPeer(t, params, pagedCounts(&pages), argv, checkCounts)
	return func(b *bench, r *Row) error {
		if err := run(b, r); err != nil {
			return err
		}
		r.Note = strings.TrimSuffix(fmt.Sprintf("the indexed server's per-file counts vs rg -c's; its answer passes the result budget, so a run is %d calls paged with offset, times summed; ", pages)+r.Note, "; ")
		return nil
	}
}

// noted runs run and puts note before what it noted.
func noted(note string, run func(*bench, *Row) error) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		if err := run(b, r); err != nil {
			return err
		}
		r.Note = strings.TrimSuffix(note+"; "+r.Note, "; ")
		return nil
	}
}

// knownTreeVsPeer times the first grep of a new server on tree t whose data
// dir holds the index and the file table t's indexed server left (server
// start and initialize not timed) against the peer: the second session on
// a tree (issue 27).
func knownTreeVsPeer(t indexTree, params map[string]any, argv []string, check func(json.RawMessage, []byte) string) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		is, err := indexedFor(b, r, t)
		if is == nil {
			return err
		}
		dir, _ := t.dir(b)
		note := "the data dir holds the index and file table of an earlier server"
		table := filepath.Join(contentindex.Dir(is.data, dir), "filetable")
		for t0 := time.Now(); ; time.Sleep(indexPoll) {
			if _, err := os.Stat(table); err == nil {
				break
			}
			if time.Since(t0) > 2*limits.FileTableSaveDelay { // a server that persists no table (--server)
				note = "the data dir holds the index of an earlier server, no file table"
				break
			}
		}
		start := func() (*server, error) { return startServer(serverConfig{bin: b.bin, root: dir, dataDir: is.data}) }
		if err := timeCallVsPeer(b, r, dir, freshCall(start, "tools/grep", params), argv, check); err != nil {
			return err
		}
		r.Note = strings.TrimPrefix(r.Note+"; "+note, "; ")
		return nil
	}
}
