//go:build linux

package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestRootRecreate_WritesDuringRemoval: the root-recreate fault while a
// worker's write (the server's MkdirAll of edits/ inside a root that still
// exists) and a command's mkdir -p land in the root during its removal.
// Before the fix the first RemoveAll failed (unlinkat ws: directory not
// empty), the fault gave up half way and was logged "done": the template's
// edits/ files no worker rewrites (e6.txt, e7.txt, bin.dat) stayed absent
// for every later session of the slot, and checkFiles blamed the server
// ("half-written: edits/e7.txt holds 0 bytes "\x00absent"").
func TestRootRecreate_WritesDuringRemoval(t *testing.T) {
	dir := t.TempDir()
	c := &campaign{template: filepath.Join(dir, "template")}
	if err := makeTemplate(c.template); err != nil {
		t.Fatal(err)
	}
	sl := &slot{ws: filepath.Join(dir, "ws0"), versions: map[string]map[string]bool{}}
	if err := copyTree(c.template, sl.ws); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for _, sub := range []string{"edits", "mut"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				// Never the root itself: the server refuses to recreate a
				// deleted root (TestDeletedWorkspaceRoot).
				_ = os.Mkdir(filepath.Join(sl.ws, sub), 0o755)
				_ = os.WriteFile(filepath.Join(sl.ws, sub, "w9-9.txt"), []byte("x\n"), 0o644)
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3 {
		if err := c.mutate(sl, "root-recreate", rng); err != nil {
			t.Fatalf("root-recreate %d: %v", i, err)
		}
		for _, f := range []string{"e6.txt", "e7.txt", "bin.dat"} {
			want, _ := os.ReadFile(filepath.Join(c.template, "edits", f))
			got, err := os.ReadFile(filepath.Join(sl.ws, "edits", f))
			if err != nil || string(got) != string(want) {
				t.Fatalf("root-recreate %d: edits/%s is not the template's: %v", i, f, err)
			}
		}
	}
}
