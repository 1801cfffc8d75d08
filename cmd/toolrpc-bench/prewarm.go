package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/toolrpc/toolrpc/internal/contentindex"
	"github.com/toolrpc/toolrpc/limits"
)

// prewarmWait is how long a session that never calls is left before its
// CPU is read: the load at initialize is over well before.
const prewarmWait = 3 * time.Second

// prewarmScenarios returns the rows of the load initialize starts on a
// known tree (issue 50), and the indexed rows restated with it: tree t's
// literal lit, rg builds a peer's command line.
func prewarmScenarios(t indexTree, lit string, rg func(...string) []string) []scenario {
	count := map[string]any{"pattern": lit, "outputMode": "count", "headLimit": wideHeadLimit}
	fold := "pm_resume"
	const suspend = `\b[A-Z]+_SUSPEND\b`
	q := func(params map[string]any) func(*bench, *Row, *indexedServer) (map[string]any, error) {
		return func(*bench, *Row, *indexedServer) (map[string]any, error) { return params, nil }
	}
	return []scenario{
		{name: "new server on a known tree, first grep count `" + lit + "` sent 1 s after initialize (" + t.name + ")", driven: drivenFreshPerCall, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.03},
			peer: "rg -c", bins: []string{"rg"},
			run: knownTreeAfter(t, time.Second, count, rg("-c", lit))},
		{name: "new server on a known tree, first grep count `" + lit + "` sent at once ÷ a server without the load (" + t.name + ")", driven: drivenFreshPerCall, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.05},
			peer: "--baseline server",
			run:  knownTreeVsBaseline(t, count)},
		{name: "CPU of the load at initialize, a session that never calls (" + t.name + ")", driven: drivenFreshPerCall, unit: "ms",
			peer: "a server with nothing stored",
			run:  prewarmCPU(t)},
		{name: "initialize latency with a stored table ÷ with nothing stored (" + t.name + ")", driven: drivenFreshPerCall, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.1},
			peer: "nothing stored",
			run:  initializeLatency(t)},
		{name: "indexed grep -i count `" + fold + "` (" + t.name + ")", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.02},
			peer: "rg -i -c", bins: []string{"rg"},
			run: indexVsPeer(t, q(map[string]any{"pattern": fold, "outputMode": "count", "caseInsensitive": true, "headLimit": wideHeadLimit}), rg("-i", "-c", fold), checkCounts)},
		{name: "indexed grep files `" + suspend + "` (" + t.name + ")", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 0.02},
			peer: "rg -l", bins: []string{"rg"},
			run: indexVsPeer(t, q(map[string]any{"pattern": suspend, "headLimit": wideHeadLimit}), rg("-l", suspend), checkFiles)},
	}
}

// knownData returns tree t's indexed server's data dir once it holds the
// file table (the known tree), and the tree's directory.
func knownData(b *bench, r *Row, t indexTree) (dir, data string, err error) {
	is, err := indexedFor(b, r, t)
	if is == nil {
		return "", "", err
	}
	dir, _ = t.dir(b)
	table := filepath.Join(contentindex.Dir(is.data, dir), "filetable")
	for t0 := time.Now(); ; time.Sleep(indexPoll) {
		if _, err := os.Stat(table); err == nil {
			return dir, is.data, nil
		}
		if time.Since(t0) > 2*limits.FileTableSaveDelay {
			return "", "", fmt.Errorf("no file table in %s", table)
		}
	}
}

// knownCopy returns a new data dir holding only data's stored index and
// file table (hard links): a server on it finds what a new server on the
// known tree finds, and no scratch dirs of earlier sessions to sweep, as a
// new empty data dir holds none.
func knownCopy(b *bench, data string) (string, error) {
	d, err := os.MkdirTemp(b.stateDir, "known-")
	if err != nil {
		return "", err
	}
	if out, err := exec.Command("cp", "-al", filepath.Join(data, "index"), filepath.Join(d, "index")).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copy the stored index: %v: %s", err, out)
	}
	return d, nil
}

// knownTreeAfter times the first grep of a new server on the known tree,
// sent wait after its initialize answered, against argv.
func knownTreeAfter(t indexTree, wait time.Duration, params map[string]any, argv []string) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		dir, data, err := knownData(b, r, t)
		if err != nil {
			return err
		}
		start := func() (*server, error) {
			s, err := startServer(serverConfig{bin: b.bin, root: dir, dataDir: data})
			if err == nil {
				time.Sleep(wait)
			}
			return s, err
		}
		if err := timeCallVsPeer(b, r, dir, freshCall(start, "tools/grep", params), argv, checkCounts); err != nil {
			return err
		}
		r.Note = fmt.Sprintf("the call alone is timed, sent %v after initialize answered; ", wait) + r.Note
		return nil
	}
}

// knownTreeVsBaseline times the first grep of a new server on the known
// tree sent at once after initialize, against the same on the --baseline
// server (built before the load at initialize), on the same data dir.
func knownTreeVsBaseline(t indexTree, params map[string]any) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		if b.cfg.baseline == "" {
			r.Note = "not measured: pass --baseline BIN (a server built before issue 50)"
			return nil
		}
		dir, data, err := knownData(b, r, t)
		if err != nil {
			return err
		}
		on := func(bin string) func() (time.Duration, error) {
			call := freshCall(func() (*server, error) { return startServer(serverConfig{bin: bin, root: dir, dataDir: data}) }, "tools/grep", params)
			return func() (time.Duration, error) {
				_, d, err := call()
				return d, err
			}
		}
		as, ps, err := interleave(b.cfg.runs, on(b.bin), on(b.cfg.baseline))
		if err != nil {
			return err
		}
		setFigures(r, as, ps)
		r.Note = "the call alone is timed, sent as soon as initialize answered; the peer is " + b.cfg.baseline
		return nil
	}
}

// prewarmCPU measures the CPU a new server on the known tree spends in
// the prewarmWait after initialize with no call (the load), against a
// server on a data dir with nothing stored.
func prewarmCPU(t indexTree) func(*bench, *Row) error {
	return knownVsEmpty(t, fmt.Sprintf("process CPU (user+system, 10 ms ticks) in the %v after initialize answered, no call", prewarmWait),
		func(s *server) (time.Duration, error) {
			c0, err := cpuTime(s.pid())
			if err != nil {
				return 0, err
			}
			time.Sleep(prewarmWait)
			c1, err := cpuTime(s.pid())
			return c1 - c0, err
		})
}

// initializeLatency times initialize (request → reply) of a new server
// on the known tree against one on a data dir with nothing stored.
func initializeLatency(t indexTree) func(*bench, *Row) error {
	return knownVsEmpty(t, "initialize request → reply; both data dirs new, the stored one holding only the index and file table",
		func(s *server) (time.Duration, error) { return s.initialize, nil })
}

// knownVsEmpty measures, interleaved, a new server on a new data dir
// holding tree t's stored index and file table against one on a new empty
// data dir: measure takes its figure from the initialized server, which is
// then closed.
func knownVsEmpty(t indexTree, note string, measure func(*server) (time.Duration, error)) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		dir, data, err := knownData(b, r, t)
		if err != nil {
			return err
		}
		on := func(dataDir func() (string, error)) func() (time.Duration, error) {
			return func() (time.Duration, error) {
				d, err := dataDir()
				if err != nil {
					return 0, err
				}
				s, err := startServer(serverConfig{bin: b.bin, root: dir, dataDir: d})
				if err != nil {
					return 0, err
				}
				v, err := measure(s)
				if cerr := s.close(); err == nil {
					err = cerr
				}
				return v, err
			}
		}
		known := func() (string, error) { return knownCopy(b, data) }
		empty := func() (string, error) { return os.MkdirTemp(b.stateDir, "empty-") }
		as, ps, err := interleave(b.cfg.runs, on(known), on(empty))
		if err != nil {
			return err
		}
		setFigures(r, as, ps)
		r.Note = note
		return nil
	}
}
