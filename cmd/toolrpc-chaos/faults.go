//go:build linux

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// sessionFaults are the faults one session may meet, with their weights.
// The first three end the session.
var sessionFaults = []struct {
	name   string
	weight int
}{
	{"kill-server", 3}, {"close-stdin", 2}, {"host-dies", 1},
	{"kill-guardian", 2}, {"stop-cont", 3}, {"stop-reading", 3},
	{"mutate-checkout", 2}, {"mutate-mass-write", 2}, {"mutate-rename-dir", 1},
	{"mutate-delete-dir", 1}, {"mutate-gitignore", 1}, {"root-recreate", 1},
}

func pickFault(rng *rand.Rand) string {
	total := 0
	for _, f := range sessionFaults {
		total += f.weight
	}
	r := rng.IntN(total)
	for _, f := range sessionFaults {
		if r -= f.weight; r < 0 {
			return f.name
		}
	}
	return sessionFaults[0].name
}

// sessionFaults injects up to two faults into s at random moments of plan.
func (c *campaign) sessionFaults(ctx context.Context, s *session, rng *rand.Rand, plan time.Duration) {
	k := rng.IntN(3)
	at := make([]time.Duration, k)
	for i := range at {
		at[i] = time.Duration(rng.Int64N(int64(plan)))
	}
	sort.Slice(at, func(i, j int) bool { return at[i] < at[j] })
	for _, d := range at {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(s.t0.Add(d))):
		}
		if s.ended.Load() {
			return
		}
		name := pickFault(rng)
		arg := 300 + rng.Int64N(3000)
		c.inject(ctx, s, name, arg, rng.Uint64())
	}
}

// inject runs fault name on s (arg: its duration in ms; seed: its
// randomness), recording it in the session's log.
func (c *campaign) inject(ctx context.Context, s *session, name string, arg int64, seed uint64) {
	i := s.record(action{Worker: -1, Fault: name, Arg: arg, Outcome: fmt.Sprint(seed)})
	c.stats.count("fault "+name, 1)
	hold := time.Duration(arg) * time.Millisecond
	rng := rand.New(rand.NewPCG(seed, 7))
	switch name {
	case "kill-server":
		s.kill(name)
	case "close-stdin":
		s.closeStdin(name)
	case "host-dies":
		s.hostDies(name)
	case "kill-guardian":
		c.killGuardian(s)
	case "stop-cont":
		select {
		case <-s.exited:
			return
		default:
		}
		s.clock.freeze()
		_ = syscall.Kill(s.pid, syscall.SIGSTOP)
		sleepCtx(ctx, hold)
		_ = syscall.Kill(s.pid, syscall.SIGCONT)
		s.clock.thaw()
	case "stop-reading":
		s.clock.freeze()
		s.out.pause()
		sleepCtx(ctx, hold)
		s.out.resume()
		s.clock.thaw()
	default:
		s.sl.mutating.Add(1)
		defer s.sl.mutating.Add(-1)
		if err := c.mutate(s.sl, name, rng); err != nil {
			// The log says so: a fault that failed half way leaves the
			// workspace in a state the checks do not expect.
			c.logf("slot %d: %s: %v", s.sl.n, name, err)
			s.finish(i, "error: "+err.Error())
			return
		}
	}
	s.finish(i, "done")
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// killGuardian SIGKILLs the server's guardian; the server must replace it.
func (c *campaign) killGuardian(s *session) {
	old := guardianOf(s.pid)
	if old == 0 {
		c.stats.count("fault kill-guardian: none running", 1)
		return
	}
	_ = syscall.Kill(old, syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if g := guardianOf(s.pid); g != 0 && g != old {
			return
		}
		if s.ended.Load() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !s.ended.Load() && s.clock.now() == 0 {
		s.violate("guardian-not-replaced", fmt.Sprintf("server %d runs no new guardian 5 s after guardian %d was killed", s.pid, old))
	}
}

// mutate changes sl's workspace while its server indexes and serves it.
func (c *campaign) mutate(sl *slot, name string, rng *rand.Rand) error {
	ws := sl.ws
	switch name {
	case "mutate-checkout":
		branch := []string{"a", "b"}[rng.IntN(2)]
		return gitAll(ws, [][]string{{"checkout", "-q", "-f", branch}, {"clean", "-q", "-f", "-d", "-e", "edits", "-e", "mut"}})
	case "mutate-mass-write":
		dir := filepath.Join(ws, "mut", fmt.Sprintf("m%d", rng.IntN(4)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for i := range 300 + rng.IntN(700) {
			content := fmt.Sprintf("mass write %d chaos %d\n", i, rng.IntN(1000))
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("w%04d.txt", i)), []byte(content), 0o644); err != nil {
				return err
			}
		}
		return nil
	case "mutate-rename-dir":
		from := filepath.Join(ws, "src", fmt.Sprintf("d%02d", rng.IntN(tmplDirs)))
		to := filepath.Join(ws, "mut", fmt.Sprintf("moved-%d", rng.IntN(4)))
		_ = os.MkdirAll(filepath.Join(ws, "mut"), 0o755)
		_ = os.RemoveAll(to)
		if err := os.Rename(from, to); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	case "mutate-delete-dir":
		return os.RemoveAll(filepath.Join(ws, "src", fmt.Sprintf("d%02d", rng.IntN(tmplDirs))))
	case "mutate-gitignore":
		content := saneIgnore
		sane := rng.IntN(2) == 0
		if !sane {
			var b strings.Builder
			for range 1 + rng.IntN(6) {
				b.WriteString(c.corpus.pick(rng, "ignore"))
				b.WriteByte('\n')
			}
			content = b.String()
		}
		sl.mu.Lock()
		sl.saneIgnore = sane
		sl.mu.Unlock()
		tmp := filepath.Join(ws, ".gitignore.chaos")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, filepath.Join(ws, ".gitignore"))
	case "root-recreate":
		// The copy is made aside and renamed in: anything that recreated
		// the root meanwhile (a command's mkdir -p) is removed again.
		tmp := ws + ".new"
		_ = os.RemoveAll(tmp)
		if err := copyTree(c.template, tmp); err != nil {
			return err
		}
		// The root still exists while it is removed, so a worker's write
		// (the server's MkdirAll of edits/) or a command's mkdir -p may
		// land in it meanwhile, and RemoveAll fails with "directory not
		// empty". Giving up there left the workspace half removed and the
		// copy unused: the template's files no worker rewrites stayed
		// absent for the rest of the slot, and checkFiles blamed the
		// server. So the removal is retried, and so is the rename.
		var err error
		for range 50 {
			if err = os.RemoveAll(ws); err == nil {
				break
			}
		}
		if err != nil {
			return err
		}
		time.Sleep(time.Duration(rng.IntN(500)) * time.Millisecond)
		sl.mu.Lock()
		sl.saneIgnore = true
		sl.mu.Unlock()
		sl.resetVersions(c.template)
		for range 50 {
			_ = os.RemoveAll(ws)
			if err = os.Rename(tmp, ws); err == nil {
				return nil
			}
		}
		return err
	}
	return fmt.Errorf("unknown fault %s", name)
}

// dataFaults fills the data dir or turns it read-only at random moments,
// until ctx ends. Both need the campaign's own tmpfs.
func (c *campaign) dataFaults(ctx context.Context, rng *rand.Rand) {
	if !c.tmpfs {
		return
	}
	for ctx.Err() == nil {
		sleepCtx(ctx, time.Duration(3000+rng.IntN(9000))*time.Millisecond)
		if ctx.Err() != nil {
			return
		}
		name := []string{"disk-full", "data-read-only"}[rng.IntN(2)]
		hold := time.Duration(1000+rng.IntN(3000)) * time.Millisecond
		c.dataFault.Add(1)
		c.forLive(func(s *session) {
			s.dataSeen.Store(true)
			s.record(action{Worker: -1, Fault: name, Arg: hold.Milliseconds()})
		})
		switch name {
		case "disk-full":
			c.stats.count("fault disk-full", 1)
			fill := filepath.Join(c.dataDir, "chaos-fill")
			f, err := os.Create(fill)
			if err == nil {
				buf := make([]byte, 1<<20)
				for range 4096 {
					if _, err := f.Write(buf); err != nil {
						break
					}
				}
				f.Close()
			}
			sleepCtx(ctx, hold)
			_ = os.Remove(fill)
		case "data-read-only":
			if err := c.overmountReadOnly(); err != nil {
				c.stats.count("fault data-read-only: refused", 1)
				c.logf("read-only overmount: %v", err)
				break
			}
			c.stats.count("fault data-read-only", 1)
			sleepCtx(ctx, hold)
			if out, err := exec.Command("umount", "-l", c.dataDir).CombinedOutput(); err != nil {
				c.logf("umount read-only overmount: %v: %s", err, out)
			}
		}
		c.dataFault.Add(-1)
	}
}

// overmountReadOnly turns the data dir read-only for every path lookup that
// follows: it bind-mounts the data dir over itself and makes that new mount
// read-only. Remounting the tmpfs itself is refused (EBUSY) while any server
// holds a file open for writing there (a scratch lock, a process log), which
// a live campaign always has; a fresh bind mount has no writers yet, so the
// flip always takes. Files already open keep writing, as they would on a
// filesystem the kernel turned read-only under them. The caller undoes it
// with a lazy unmount.
func (c *campaign) overmountReadOnly() error {
	if out, err := exec.Command("mount", "--bind", c.dataDir, c.dataDir).CombinedOutput(); err != nil {
		return fmt.Errorf("bind: %v: %s", err, strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", c.dataDir).CombinedOutput(); err != nil {
		_ = exec.Command("umount", "-l", c.dataDir).Run()
		return fmt.Errorf("remount ro: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
