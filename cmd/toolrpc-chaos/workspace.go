//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The template workspace: a git repository whose branches a and b differ
// in thousands of files, a large file, and edits/ — the untracked files
// edit and write touch, checked byte for byte after every session.
const (
	tmplDirs     = 40
	tmplFiles    = 50 // per dir
	editFiles    = 8
	saneIgnore   = "build/\n*.log\nmut/ignored/\n"
	quietPattern = "chaos"
)

// makeTemplate builds the template workspace at dir.
func makeTemplate(dir string) error {
	write := func(rel, content string) error {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(content), 0o644)
	}
	for d := range tmplDirs {
		for f := range tmplFiles {
			var b strings.Builder
			for l := range 12 {
				word := "plain"
				if (d+f+l)%5 == 0 {
					word = quietPattern
				}
				fmt.Fprintf(&b, "line %d of d%02d/f%04d %s\n", l, d, f, word)
			}
			if err := write(fmt.Sprintf("src/d%02d/f%04d.txt", d, f), b.String()); err != nil {
				return err
			}
		}
	}
	var big bytes.Buffer
	for i := 1; big.Len() < 3<<20; i++ {
		fmt.Fprintf(&big, "%07d the quick brown fox %s\n", i, strings.Repeat("é", i%40))
	}
	if err := write("big.txt", big.String()); err != nil {
		return err
	}
	if err := write(".gitignore", saneIgnore); err != nil {
		return err
	}
	if err := write("build/out.txt", "chaos ignored\n"); err != nil {
		return err
	}
	steps := [][]string{{"init", "-q", "-b", "a"}, {"add", "-A"}, {"commit", "-q", "-m", "a"}, {"checkout", "-q", "-b", "b"}}
	if err := gitAll(dir, steps); err != nil {
		return err
	}
	for d := range tmplDirs {
		for f := range tmplFiles {
			rel := fmt.Sprintf("src/d%02d/f%04d.txt", d, f)
			switch {
			case f%10 == 0:
				if err := os.Remove(filepath.Join(dir, rel)); err != nil {
					return err
				}
			case f%4 != 3:
				if err := write(rel, fmt.Sprintf("branch b rewrote %s\nchaos %d\n", rel, f)); err != nil {
					return err
				}
			}
		}
		if err := write(fmt.Sprintf("src/b%02d/new.txt", d), "only on b chaos\n"); err != nil {
			return err
		}
	}
	if err := gitAll(dir, [][]string{{"add", "-A"}, {"commit", "-q", "-m", "b"}, {"checkout", "-q", "a"}}); err != nil {
		return err
	}
	for i := range editFiles {
		var b strings.Builder
		for l := range 10 + i*3 {
			fmt.Fprintf(&b, "edit file %d line %d\n", i, l)
		}
		if err := write(fmt.Sprintf("edits/e%d.txt", i), b.String()); err != nil {
			return err
		}
	}
	return write("edits/bin.dat", "\x00\x01binary\x00")
}

func gitAll(dir string, steps [][]string) error {
	for _, st := range steps {
		cmd := exec.Command("git", append([]string{"-c", "user.name=chaos", "-c", "user.email=chaos@localhost"}, st...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", st, err, out)
		}
	}
	return nil
}

func copyTree(from, to string) error {
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", from, to, err, out)
	}
	return nil
}

// resetVersions makes the template's edits/ files the only known versions.
func (sl *slot) resetVersions(template string) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.versions = map[string]map[string]bool{}
	ents, _ := os.ReadDir(filepath.Join(template, "edits"))
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(template, "edits", e.Name()))
		if err == nil {
			sl.versions["edits/"+e.Name()] = map[string]bool{string(b): true}
		}
	}
}

// absent is the version of a file that may not exist (a create that failed).
const absent = "\x00absent"

// addVersion notes that rel may now hold content.
func (sl *slot) addVersion(rel, content string) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.versions[rel] == nil {
		sl.versions[rel] = map[string]bool{absent: true}
	}
	sl.versions[rel][content] = true
}

// checkFiles: every file under edits/ holds one of the versions sent for
// it or its original, byte for byte, and no other file is there.
func (c *campaign) checkFiles(s *session) {
	sl := s.sl
	sl.mu.Lock()
	defer sl.mu.Unlock()
	c.stats.count("file checks", 1)
	for rel, vs := range sl.versions {
		b, err := os.ReadFile(filepath.Join(sl.ws, rel))
		got := string(b)
		if err != nil {
			got = absent
		}
		if !vs[got] {
			s.violate("half-written", fmt.Sprintf("%s holds %d bytes %q, none of the %d versions sent or its original", rel, len(b), truncate(got, 120), len(vs)))
		}
	}
	ents, _ := os.ReadDir(filepath.Join(sl.ws, "edits"))
	for _, e := range ents {
		if ok, _ := filepath.Match(".*.toolrpc-*.tmp", e.Name()); ok && s.killed() {
			// atomicfile's documented leftover of a writer killed between
			// naming its temporary file and the rename (on Linux the file is
			// unnamed until then): the target is intact, the file
			// recognisable.
			c.stats.count("temp files left by a killed writer", 1)
			_ = os.Remove(filepath.Join(sl.ws, "edits", e.Name()))
			continue
		}
		if sl.versions["edits/"+e.Name()] == nil {
			s.violate("stray-file", fmt.Sprintf("edits/%s is no file the driver wrote (a temp file left behind?)", e.Name()))
		}
	}
}

// checkQuiescent: on a tree nothing changes, grep (count mode) and glob
// page through exactly what a cold scan (rg) finds. The edits/ files hold
// hostile content, so they are left out of the comparison.
func (c *campaign) checkQuiescent(ctx context.Context, s *session) {
	sl := s.sl
	if c.rg == "" || sl.mutating.Load() > 0 || !sl.ignoreIsSane() || s.ended.Load() {
		return
	}
	want, err := rgCounts(c.rg, sl.ws)
	if err != nil {
		c.logf("rg: %v", err)
		return
	}
	got := map[string]int{}
	for off := 0; off < 100000; off += 500 {
		o := s.do(ctx, -3, &call{Method: "tools/grep", Params: mustJSON(map[string]any{"pattern": quietPattern, "outputMode": "count", "headLimit": 500, "offset": off})})
		if o.err != nil || o.rpc != nil {
			if !s.ended.Load() {
				s.violate("quiescent-grep", fmt.Sprintf("grep at offset %d: %v", off, o))
			}
			return
		}
		var r struct {
			Counts []struct {
				Path  string `json:"path"`
				Count int    `json:"count"`
			} `json:"counts"`
		}
		_ = json.Unmarshal(o.raw, &r)
		for _, e := range r.Counts {
			if !strings.HasPrefix(e.Path, "edits/") {
				got[e.Path] = e.Count
			}
		}
		if len(r.Counts) < 500 {
			break
		}
	}
	c.stats.count("quiescent checks", 1)
	if d := diffCounts(want, got); d != "" {
		s.violate("quiescent-grep", "grep count over a quiet tree differs from rg -c (want rg, got server): "+d)
	}
	wantFiles, err := rgFiles(c.rg, sl.ws)
	if err != nil {
		return
	}
	gotFiles := map[string]int{}
	for off := 0; off < 100000; off += 1000 {
		o := s.do(ctx, -3, &call{Method: "tools/glob", Params: mustJSON(map[string]any{"pattern": "**", "limit": 1000, "offset": off})})
		if o.err != nil || o.rpc != nil {
			if !s.ended.Load() {
				s.violate("quiescent-glob", fmt.Sprintf("glob at offset %d: %v", off, o))
			}
			return
		}
		var r struct {
			Matches []string `json:"matches"`
		}
		_ = json.Unmarshal(o.raw, &r)
		for _, m := range r.Matches {
			if !strings.HasPrefix(m, "edits/") {
				gotFiles[m] = 1
			}
		}
		if len(r.Matches) < 1000 {
			break
		}
	}
	if d := diffCounts(wantFiles, gotFiles); d != "" {
		s.violate("quiescent-glob", "glob ** over a quiet tree differs from rg --files (want rg, got server): "+d)
	}
}

func (sl *slot) ignoreIsSane() bool {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return sl.saneIgnore
}

func rgCounts(rg, dir string) (map[string]int, error) {
	cmd := exec.Command(rg, "-c", "--hidden", "-g", "!.git", "-g", "!edits", quietPattern)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil && len(out) > 0 {
		return nil, err
	}
	m := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		i := strings.LastIndexByte(line, ':')
		if i < 0 {
			continue
		}
		n, _ := strconv.Atoi(line[i+1:])
		m[line[:i]] = n
	}
	return m, nil
}

func rgFiles(rg, dir string) (map[string]int, error) {
	cmd := exec.Command(rg, "--files", "--hidden", "-g", "!.git", "-g", "!edits")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	m := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" {
			m[line] = 1
		}
	}
	return m, nil
}

// diffCounts describes how got differs from want, or "".
func diffCounts(want, got map[string]int) string {
	var d []string
	for k, w := range want {
		if g, ok := got[k]; !ok {
			d = append(d, fmt.Sprintf("-%s:%d", k, w))
		} else if g != w {
			d = append(d, fmt.Sprintf("%s:%d≠%d", k, w, g))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			d = append(d, fmt.Sprintf("+%s:%d", k, g))
		}
	}
	if len(d) == 0 {
		return ""
	}
	sort.Strings(d)
	n := len(d)
	if n > 12 {
		d = d[:12]
	}
	return fmt.Sprintf("%d entries differ (of %d): %s", n, len(want), strings.Join(d, " "))
}

// checkRestart: a server started on the data dir after any fault loads
// every checkpoint an earlier session of the slot saved (LSP faces), as
// saved, and answers a quiet tree as a cold scan does.
func (c *campaign) checkRestart(ctx context.Context, s *session) {
	if s.face != faceMCP {
		s.sl.mu.Lock()
		ids := map[string]ckpt{}
		for id, ck := range s.sl.checkpoints {
			ids[id] = *ck
		}
		s.sl.mu.Unlock()
		for id, ck := range ids {
			o := s.do(ctx, -3, &call{Method: "context/load", Params: mustJSON(map[string]any{"checkpointId": id})})
			c.stats.count("checkpoint loads", 1)
			switch {
			case o.err != nil:
				return // the session ended under a fault
			case o.rpc != nil && o.rpc.Kind == "NOT_FOUND" && len(ck.ok) == 0:
			case o.rpc != nil:
				if !s.dataSeen.Load() || len(ck.ok) > 0 {
					s.violate("checkpoint-load", fmt.Sprintf("context/load %s after a restart: %v (%d compacts answered, %d unknown)", id, o, len(ck.ok), ck.unknown))
				}
			default:
				var r struct {
					Messages json.RawMessage `json:"messages"`
				}
				_ = json.Unmarshal(o.raw, &r)
				if !ck.ok[canonical(r.Messages)] && ck.unknown == 0 {
					s.violate("checkpoint-load", fmt.Sprintf("context/load %s returned messages no compact answered (%d answered)", id, len(ck.ok)))
				}
			}
		}
	}
	c.checkQuiescent(ctx, s)
}

// canonical re-encodes JSON with sorted keys.
func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
