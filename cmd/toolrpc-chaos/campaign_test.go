//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// campaignDuration is TestCampaign's length: TOOLRPC_CHAOS_DURATION if
// set, else 3 minutes in CI (CI=true), else 40 s.
func campaignDuration(t *testing.T) time.Duration {
	if v := os.Getenv("TOOLRPC_CHAOS_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("TOOLRPC_CHAOS_DURATION: %v", err)
		}
		return d
	}
	if os.Getenv("CI") == "true" {
		return 3 * time.Minute
	}
	return 40 * time.Second
}

// buildServer builds the server without -race, as hosts run it.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "toolrpc")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/toolrpc")
	wd, _ := os.Getwd()
	cmd.Dir = findRepo(wd)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func testCampaign(t *testing.T, d time.Duration, slots int) *campaign {
	t.Helper()
	cfg := config{seed: freshSeed(), duration: d, slots: slots, bin: buildServer(t), out: t.TempDir(),
		grace: 30 * time.Second, rssMB: 1024, dataMB: 256, quiet: !testing.Verbose()}
	t.Logf("seed %d (rerun: go run ./cmd/toolrpc-chaos --seed %d --duration %v --slots %d)", cfg.seed, cfg.seed, d, slots)
	c, cleanup, err := newCampaign(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	return c
}

// TestCampaign runs a fault campaign against the real server and fails on
// any violation, each saved as violation-N.json beside the run's logs.
func TestCampaign(t *testing.T) {
	d := campaignDuration(t)
	c := testCampaign(t, d, 3)
	start := time.Now()
	found := c.run(context.Background())
	t.Log("\n" + c.summary(time.Since(start), loadavg()))
	if c.stats.get("call tools/bash") == 0 || c.stats.get("heartbeats") == 0 {
		t.Fatal("the campaign made no bash call or no heartbeat")
	}
	for _, v := range found {
		t.Errorf("%s (slot %d session %d %s): %s\n  replay: go run ./cmd/toolrpc-chaos --replay %s", v.Kind, v.Slot, v.Session, v.Face, v.Detail, c.runDir)
	}
	t.Run("batch session", func(t *testing.T) { batchSessionCheck(t, c) })
}

// TestCampaign_DetectsPlanted shows the invariants can fail: a process
// carrying a session's tag that outlives it, a truncated edits/ file, and a
// stray temp-like file are each reported.
func TestCampaign_DetectsPlanted(t *testing.T) {
	c := testCampaign(t, time.Second, 1)
	sl := c.newSlot(0)
	s := &session{c: c, sl: sl, face: faceLSP, tag: tagKey + "=planted-" + t.Name()}
	s.logPath = filepath.Join(c.runDir, "logs", "planted.log")
	if err := os.WriteFile(s.logPath, []byte("2025/01/01 toolrpc: panic in tools/read: boom\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	leak := exec.Command("sleep", "60")
	leak.Env = append(os.Environ(), s.tag)
	leak.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := leak.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = leak.Wait(); close(exited) }()
	defer func() { _ = leak.Process.Kill(); <-exited }()
	e0 := filepath.Join(sl.ws, "edits", "e0.txt")
	b, err := os.ReadFile(e0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e0, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sl.ws, "edits", "stray.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.afterSession(s, false)
	kinds := map[string]bool{}
	for _, v := range c.violations {
		kinds[v.Kind] = true
	}
	for _, want := range []string{"survivor", "half-written", "stray-file", "log"} {
		if !kinds[want] {
			t.Errorf("planted %s not reported; got %v", want, c.violations)
		}
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Error("the planted survivor was reported but not killed")
	}
	if !strings.Contains(c.summary(time.Second, "?"), "violations: 4") {
		t.Errorf("summary:\n%s", c.summary(time.Second, "?"))
	}
}

// TestCampaign_DetectsBrokenResults: the result checks reject a bash
// result whose counts disagree, a marker that is not exact, and a process
// reply that loses bytes.
func TestCampaign_DetectsBrokenResults(t *testing.T) {
	want := "1\n2\n"
	for name, raw := range map[string]string{
		"bytes":  `{"exitCode":0,"stdout":"1\n2\n","stderr":"","truncated":false,"stdoutInfo":{"bytes":5,"lines":2,"truncated":false,"omittedBytes":0,"omittedLines":0,"chunks":0},"stderrInfo":{"bytes":0,"lines":0,"truncated":false,"omittedBytes":0,"omittedLines":0,"chunks":0}}`,
		"marker": `{"exitCode":0,"stdout":"1\n[truncated: kept some]\n","stderr":"","truncated":true,"stdoutInfo":{"bytes":4,"lines":2,"truncated":true,"omittedBytes":0,"omittedLines":0,"chunks":0},"stderrInfo":{"bytes":0,"lines":0,"truncated":false,"omittedBytes":0,"omittedLines":0,"chunks":0}}`,
		"output": `{"exitCode":0,"stdout":"1\n3\n","stderr":"","truncated":false,"stdoutInfo":{"bytes":4,"lines":2,"truncated":false,"omittedBytes":0,"omittedLines":0,"chunks":0},"stderrInfo":{"bytes":0,"lines":0,"truncated":false,"omittedBytes":0,"omittedLines":0,"chunks":0}}`,
	} {
		if err := checkBash([]byte(raw), &want, true, nil); err == nil {
			t.Errorf("%s: a broken bash result passed", name)
		}
	}
	lost := `{"id":"p1","pid":1,"mode":"pipe","state":"running","reason":"idle","exitCode":null,"log":"x","durationMs":1,"output":"ab\n","cursor":{"from":0,"to":10},"truncated":false,"omittedBytes":0}`
	if err := checkProcess([]byte(lost)); err == nil {
		t.Error("a process reply that loses bytes passed")
	}
}

func freshSeed() uint64 { return uint64(time.Now().UnixNano()) >> 1 }
