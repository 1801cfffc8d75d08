//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// config is a campaign's settings.
type config struct {
	seed     uint64
	duration time.Duration
	slots    int           // sessions running at once
	bin      string        // the server binary
	out      string        // where violations, logs and the summary go
	grace    time.Duration // added to every call's own deadline
	rssMB    int           // the server's RSS bound
	dataMB   int           // the data dir's tmpfs size
	verbose  bool
	// quiet, when set, keeps the progress lines off stderr (tests).
	quiet bool
}

// campaign is one run: its slots, the shared data dir, the counts and
// the violations.
type campaign struct {
	cfg      config
	runDir   string
	dataDir  string
	tmpfs    bool // dataDir is a tmpfs the campaign mounted
	template string
	corpus   *corpus
	rg       string // path of rg, or ""
	deadline time.Time
	// replayFace is the face of the session --replay runs.
	replayFace string
	stats      *stats

	dataFault atomic.Int32 // a data-dir fault is in force
	lmu       sync.Mutex
	live      map[*session]bool

	vmu        sync.Mutex
	violations []violation
}

// violation is one broken invariant, saved with what reproduces it.
type violation struct {
	Kind      string   `json:"kind"`
	Detail    string   `json:"detail"`
	Seed      uint64   `json:"seed"`
	Slot      int      `json:"slot"`
	Session   int      `json:"session"`
	Face      string   `json:"face"`
	SessionID string   `json:"sessionId"`
	At        string   `json:"at"`
	ServerLog string   `json:"serverLog,omitempty"`
	Log       []action `json:"log"`
}

// stats counts what a campaign did.
type stats struct {
	mu    sync.Mutex
	n     map[string]int
	first map[string]string // the first message seen under a name
}

// example keeps the first message seen under what, so the summary shows
// what an error code stood for in this run.
func (s *stats) example(what, msg string) {
	s.mu.Lock()
	if s.first == nil {
		s.first = map[string]string{}
	}
	if _, ok := s.first[what]; !ok {
		s.first[what] = msg
	}
	s.mu.Unlock()
}

func (s *stats) count(what string, n int) {
	s.mu.Lock()
	s.n[what] += n
	s.mu.Unlock()
}

func (s *stats) get(what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[what]
}

// report lists the counts, one "name: n" a line, sorted.
func (s *stats) report() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.n))
	for k := range s.n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-34s %d\n", k, s.n[k])
		if m, ok := s.first[k]; ok {
			fmt.Fprintf(&b, "    first: %s\n", m)
		}
	}
	return b.String()
}

// violate records v and saves it as violation-N.json in the out dir.
func (c *campaign) violate(v violation) {
	v.Seed = c.cfg.seed
	v.At = time.Now().Format(time.RFC3339Nano)
	c.vmu.Lock()
	c.violations = append(c.violations, v)
	n := len(c.violations)
	c.vmu.Unlock()
	c.stats.count("violation "+v.Kind, 1)
	b, _ := json.MarshalIndent(v, "", " ")
	path := filepath.Join(c.runDir, fmt.Sprintf("violation-%d.json", n))
	_ = os.WriteFile(path, b, 0o644)
	c.logf("VIOLATION %s (slot %d session %d %s): %s — saved %s", v.Kind, v.Slot, v.Session, v.Face, truncate(v.Detail, 600), path)
}

func (c *campaign) logf(format string, args ...any) {
	if !c.cfg.quiet || strings.HasPrefix(format, "VIOLATION") {
		fmt.Fprintf(os.Stderr, "toolrpc-chaos %s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}

// slot runs sessions one after another on one workspace and one session
// id, so each session is the restart of the one before it.
type slot struct {
	n         int
	ws        string
	sessionID string
	rng       *rand.Rand

	mu          sync.Mutex
	versions    map[string]map[string]bool // edits/ file -> contents it may hold
	checkpoints map[string]*ckpt
	saneIgnore  bool // .gitignore is the template's
	mutating    atomic.Int32
}

// ckpt is what context/compact was sent and answered for one id.
type ckpt struct {
	ok      map[string]bool // canonical JSON of the messages of each answered compact
	unknown int             // compacts whose outcome is unknown (killed, cancelled, timed out)
}

// run runs the campaign until its deadline and returns the violations.
func (c *campaign) run(ctx context.Context) []violation {
	c.deadline = time.Now().Add(c.cfg.duration)
	ctx, cancel := context.WithDeadline(ctx, c.deadline.Add(2*time.Minute))
	defer cancel()
	var wg sync.WaitGroup
	dctx, dstop := context.WithDeadline(ctx, c.deadline)
	wg.Go(func() { c.dataFaults(dctx, rand.New(rand.NewPCG(c.cfg.seed, 1<<40))) })
	for i := range c.cfg.slots {
		sl := c.newSlot(i)
		wg.Go(func() { c.runSlot(ctx, sl) })
	}
	wg.Wait()
	dstop()
	c.vmu.Lock()
	defer c.vmu.Unlock()
	return append([]violation(nil), c.violations...)
}

func (c *campaign) newSlot(i int) *slot {
	sl := &slot{n: i, ws: filepath.Join(c.runDir, fmt.Sprintf("ws%d", i)),
		sessionID: fmt.Sprintf("chaos-%d-slot%d", c.cfg.seed, i),
		rng:       rand.New(rand.NewPCG(c.cfg.seed, uint64(i)+1)),
		versions:  map[string]map[string]bool{}, checkpoints: map[string]*ckpt{}, saneIgnore: true}
	if err := copyTree(c.template, sl.ws); err != nil {
		c.logf("slot %d: copy workspace: %v", i, err)
	}
	sl.resetVersions(c.template)
	return sl
}

func (c *campaign) runSlot(ctx context.Context, sl *slot) {
	for n := 0; time.Now().Before(c.deadline) && ctx.Err() == nil; n++ {
		c.runSession(ctx, sl, n, nil)
	}
}

// register notes s as live, so data-dir faults reach its log.
func (c *campaign) register(s *session, live bool) {
	c.lmu.Lock()
	defer c.lmu.Unlock()
	if live {
		c.live[s] = true
		if c.dataFault.Load() > 0 {
			s.dataSeen.Store(true)
		}
	} else {
		delete(c.live, s)
	}
}

// forLive calls fn for each live session.
func (c *campaign) forLive(fn func(s *session)) {
	c.lmu.Lock()
	defer c.lmu.Unlock()
	for s := range c.live {
		fn(s)
	}
}

// summary is the campaign's report.
func (c *campaign) summary(elapsed time.Duration, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "toolrpc-chaos: seed %d, %v (planned %v), %d slots, load %s\n", c.cfg.seed, elapsed.Round(time.Second), c.cfg.duration, c.cfg.slots, load)
	fmt.Fprintf(&b, "data dir %s (tmpfs %v), rg %v, run dir %s\n", c.dataDir, c.tmpfs, c.rg != "", c.runDir)
	b.WriteString(c.stats.report())
	c.vmu.Lock()
	fmt.Fprintf(&b, "violations: %d\n", len(c.violations))
	for i, v := range c.violations {
		fmt.Fprintf(&b, "  %d. %s (slot %d session %d %s): %s\n", i+1, v.Kind, v.Slot, v.Session, v.Face, truncate(v.Detail, 300))
	}
	c.vmu.Unlock()
	return b.String()
}
