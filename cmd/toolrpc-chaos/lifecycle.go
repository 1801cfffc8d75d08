//go:build linux

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// survivorWindow is how long after its server exited a session's processes
// may live (issue 36: 2 s).
const survivorWindow = 2 * time.Second

// exitWithin bounds how long a server may take to exit once its host is
// gone (stdin EOF, shutdown, kill).
var exitWithin = 15 * time.Second

// runSession runs one session of sl: spawn, random calls and faults (or
// the replayed log), an end, and the checks after it.
func (c *campaign) runSession(ctx context.Context, sl *slot, n int, replay []action) {
	rng := rand.New(rand.NewPCG(sl.rng.Uint64(), sl.rng.Uint64()))
	faces := []string{faceLSP, faceLSPProgress, faceMCP}
	s := &session{c: c, sl: sl, n: n, face: faces[rng.IntN(len(faces))],
		tag: fmt.Sprintf("%s=%d-%d-%d", tagKey, c.cfg.seed, sl.n, n)}
	if s.face == faceMCP && rng.IntN(4) == 0 {
		s.face = faceMCPBatch
	}
	if replay != nil {
		s.face = c.replayFace
	}
	var nofile uint64
	if rng.IntN(12) == 0 {
		nofile = 64 + uint64(rng.IntN(64))
		c.stats.count("fault low-nofile", 1)
	}
	c.stats.count("sessions "+s.face, 1)
	c.register(s, true)
	defer c.register(s, false)
	if err := s.spawn(ctx, nofile); err != nil {
		s.kill("spawn failed")
		s.awaitExit(exitWithin, "no-exit")
		switch {
		case s.dataSeen.Load() || c.dataFault.Load() > 0 || nofile > 0:
			c.stats.count("start failed under a fault", 1)
		default:
			s.violate("no-start", fmt.Sprintf("a new server on the data dir did not start: %v", err))
		}
		c.afterSession(s, false)
		return
	}
	if nofile > 0 {
		s.record(action{Worker: -1, Fault: "low-nofile", Arg: int64(nofile)})
	}
	if s.face == faceMCPBatch {
		c.batchSession(ctx, s, batchSessionCalls(s, rng, replay), nofile > 0)
		s.awaitExit(exitWithin, "no-exit")
		c.afterSession(s, false)
		return
	}
	s.base, _ = usageOf(s.pid)
	c.checkRestart(ctx, s)

	plan := time.Duration(5+rng.IntN(25)) * time.Second
	if replay != nil {
		plan = time.Duration(replay[len(replay)-1].T)*time.Millisecond + time.Second
	} else if left := time.Until(c.deadline); plan > left {
		plan = max(left, time.Second)
	}
	sctx, stop := context.WithTimeout(ctx, plan)
	defer stop()
	var wg sync.WaitGroup
	if replay != nil {
		c.replayActions(sctx, s, replay, &wg)
	} else {
		workers := 1 + rng.IntN(3)
		for w := range workers {
			wr := newWorker(s, w, rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())))
			wg.Go(func() { wr.loop(sctx) })
		}
		frng := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		wg.Go(func() { c.sessionFaults(sctx, s, frng, plan) })
	}
	hctx, hstop := context.WithCancel(ctx)
	var hb sync.WaitGroup
	hb.Go(func() { c.heartbeat(hctx, s) })
	wg.Wait()
	hstop()
	hb.Wait()

	polite := false
	if !s.ended.Load() {
		c.checkQuiescent(ctx, s)
		c.checkResources(ctx, s)
		switch r := rng.IntN(10); {
		case r < 7:
			polite = true
			c.stats.count("end shutdown", 1)
			if err := s.closePolitely(); err != nil && s.face != faceMCP {
				s.violate("shutdown", fmt.Sprintf("a polite close failed: %v", err))
			}
		case r < 9:
			c.stats.count("end stdin-eof", 1)
			s.closeStdin("stdin EOF at the end")
		default:
			c.stats.count("end host-dies", 1)
			s.hostDies("host dies at the end")
		}
	}
	s.awaitExit(exitWithin, "no-exit")
	c.afterSession(s, polite)
}

// afterSession checks what must hold once a session's server is gone: no
// survivor, a clean log, the scratch swept, nothing half-written.
func (c *campaign) afterSession(s *session, polite bool) {
	if left := untilNoneTagged(s.tag, survivorWindow); len(left) > 0 {
		s.violate("survivor", fmt.Sprintf("%d processes of the session alive %v after its server exited (%s): %v",
			len(left), survivorWindow, s.endHow, left))
		killAll(left)
	}
	c.checkLog(s)
	if polite && !s.dataSeen.Load() {
		dir := filepath.Join(c.dataDir, "scratch", s.sl.sessionID)
		if _, err := os.Stat(dir); err == nil {
			s.violate("scratch-kept", fmt.Sprintf("%s still exists after shutdown", dir))
		}
	}
	c.checkFiles(s)
}

// checkLog reads the server's log and stderr for what no fault excuses: a
// panic, a race report, a fatal error, an ERROR line.
func (c *campaign) checkLog(s *session) {
	for _, p := range []string{s.logPath, s.errPath} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			for _, bad := range []string{"panic", "fatal error", "DATA RACE", "level=ERROR"} {
				if strings.Contains(line, bad) {
					s.violate("log", fmt.Sprintf("%s: %s", filepath.Base(p), truncate(line, 400)))
					return
				}
			}
		}
	}
}

// heartbeat sends tools/list every 2 s while the session lives and bounds
// the server's RSS.
func (c *campaign) heartbeat(ctx context.Context, s *session) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for !s.ended.Load() {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s.ended.Load() {
			return
		}
		s.do(ctx, -2, &call{Method: "tools/list"})
		c.stats.count("heartbeats", 1)
		if u, ok := usageOf(s.pid); ok && u.rssKB > c.cfg.rssMB*1024 {
			s.violate("rss", fmt.Sprintf("server RSS %d MB over the %d MB bound", u.rssKB/1024, c.cfg.rssMB))
		}
	}
}

// checkResources: with every call done and every process of the session
// killed, the server's fds are back near their baseline.
func (c *campaign) checkResources(ctx context.Context, s *session) {
	s.pmu.Lock()
	ids := append([]string(nil), s.procs...)
	s.pmu.Unlock()
	for _, id := range ids {
		s.do(ctx, -3, &call{Method: "tools/process/signal", Params: mustJSON(map[string]any{"id": id, "signal": "KILL"})})
	}
	deadline := time.Now().Add(5 * time.Second)
	var u usage
	for {
		var ok bool
		if u, ok = usageOf(s.pid); !ok || u.fds <= s.base.fds+fdSlack || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.stats.count("resource checks", 1)
	if u.fds > s.base.fds+fdSlack {
		s.violate("fds", fmt.Sprintf("server holds %d fds after its calls and processes ended; %d after initialize", u.fds, s.base.fds))
	}
	if u.threads > maxThreads {
		s.violate("threads", fmt.Sprintf("server runs %d threads (bound %d)", u.threads, maxThreads))
	}
}

// fdSlack is how many fds past its after-initialize count a quiet server
// may hold (index watches, the log, a guardian pipe); maxThreads bounds its
// threads (Go keeps threads it made, so they are bounded, not returned).
const (
	fdSlack    = 48
	maxThreads = 200
)
