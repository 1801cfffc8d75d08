//go:build linux

package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("toolrpc-chaos", flag.ContinueOnError)
	seed := fs.Uint64("seed", 0, "the campaign's seed (default: a fresh one, printed)")
	duration := fs.Duration("duration", 5*time.Minute, "how long to run")
	slots := fs.Int("slots", 4, "sessions at once")
	bin := fs.String("bin", "", "the server binary (default: go build ./cmd/toolrpc from this repository)")
	out := fs.String("out", "", "directory for the run (default: a new temp dir)")
	grace := fs.Duration("grace", 20*time.Second, "added to every call's own deadline")
	replay := fs.String("replay", "", "a violation-N.json to run again")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		*seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	cfg := config{seed: *seed, duration: *duration, slots: *slots, bin: *bin, out: *out, grace: *grace, rssMB: 1024, dataMB: 256}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var v *violation
	if *replay != "" {
		b, err := os.ReadFile(*replay)
		if err == nil {
			v = new(violation)
			err = json.Unmarshal(b, v)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "toolrpc-chaos: %v\n", err)
			return 2
		}
		cfg.seed = v.Seed
	}
	fmt.Fprintf(os.Stderr, "toolrpc-chaos: seed %d\n", cfg.seed)
	c, cleanup, err := newCampaign(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolrpc-chaos: %v\n", err)
		return 2
	}
	defer cleanup()
	start := time.Now()
	var found []violation
	if v != nil {
		found = c.replay(ctx, v)
	} else {
		found = c.run(ctx)
	}
	sum := c.summary(time.Since(start), loadavg())
	fmt.Print(sum)
	_ = os.WriteFile(filepath.Join(c.runDir, "summary.txt"), []byte(sum), 0o644)
	if len(found) > 0 {
		return 1
	}
	return 0
}

// newCampaign prepares a campaign: the run dir, the server binary, the
// data dir (a tmpfs when root), the template workspace, the corpus. The
// returned function unmounts and removes what it made.
func newCampaign(cfg config) (*campaign, func(), error) {
	c := &campaign{cfg: cfg, stats: &stats{n: map[string]int{}}, live: map[*session]bool{}}
	var err error
	if cfg.out == "" {
		if c.runDir, err = os.MkdirTemp("", "toolrpc-chaos-"); err != nil {
			return nil, nil, err
		}
	} else {
		c.runDir = cfg.out
	}
	if err := os.MkdirAll(filepath.Join(c.runDir, "logs"), 0o755); err != nil {
		return nil, nil, err
	}
	wd, _ := os.Getwd()
	repo := findRepo(wd)
	if c.cfg.bin == "" {
		if repo == "" {
			return nil, nil, fmt.Errorf("no --bin and no repository above %s to build from", wd)
		}
		c.cfg.bin = filepath.Join(c.runDir, "toolrpc")
		cmd := exec.Command("go", "build", "-o", c.cfg.bin, "./cmd/toolrpc")
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, nil, fmt.Errorf("go build: %v: %s", err, out)
		}
	}
	c.corpus = loadCorpus(repo)
	c.rg, _ = exec.LookPath("rg")
	c.dataDir = filepath.Join(c.runDir, "data")
	if err := os.MkdirAll(c.dataDir, 0o700); err != nil {
		return nil, nil, err
	}
	if os.Geteuid() == 0 {
		out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm,mode=0700", cfg.dataMB), "tmpfs", c.dataDir).CombinedOutput()
		if err == nil {
			c.tmpfs = true
		} else {
			c.logf("no tmpfs for the data dir (disk faults off): %v: %s", err, strings.TrimSpace(string(out)))
		}
	}
	c.template = filepath.Join(c.runDir, "template")
	if err := makeTemplate(c.template); err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		if c.tmpfs {
			// The tmpfs, and a read-only overmount a fault may still hold.
			for range 3 {
				if exec.Command("umount", "-l", c.dataDir).Run() != nil {
					break
				}
			}
		}
		if cfg.out == "" && len(c.violations) == 0 {
			_ = os.RemoveAll(c.runDir)
		}
	}
	return c, cleanup, nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
