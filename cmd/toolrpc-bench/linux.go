package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The Linux rows search the kernel source Debian ships as a tarball.
const (
	linuxPackage    = "linux-source-6.1"
	linuxTarDefault = "/usr/src/linux-source-6.1.tar.xz"
	linuxVersion    = 1 // changes when prepareLinuxTree changes
	linuxNote       = "Debian's linux-source-6.1 extracted, its two packaging lines `/*` and `!/debian/` removed from the top .gitignore"
)

// debianLines are the lines Debian's packaging appends to the top
// .gitignore; with them every top-level entry but debian/ is ignored, so
// both toolrpc and rg would search nothing.
var debianLines = map[string]bool{"/*": true, "!/debian/": true}

// linuxTree is the extracted kernel source.
type linuxTree struct {
	Dir     string `json:"-"`
	Tar     string `json:"tar"`
	TarSize int64  `json:"tarSize"`
	Removed int    `json:"removed"` // .gitignore lines removed
	Version int    `json:"version"`
}

// prepareLinuxTree extracts tarball into cache once (kept between runs) and
// removes Debian's packaging lines from the top .gitignore.
func prepareLinuxTree(cache, tarball string, log io.Writer) (linuxTree, error) {
	dir := filepath.Join(cache, "linux")
	stamp := dir + ".json"
	fi, err := os.Stat(tarball)
	if err != nil {
		return linuxTree{}, fmt.Errorf("linux tree: %w (apt-get install %s)", err, linuxPackage)
	}
	var lt linuxTree
	if b, err := os.ReadFile(stamp); err == nil && json.Unmarshal(b, &lt) == nil &&
		lt.Version == linuxVersion && lt.Tar == tarball && lt.TarSize == fi.Size() {
		if _, err := os.Stat(filepath.Join(dir, "Makefile")); err == nil {
			lt.Dir = dir
			return lt, nil
		}
	}
	fmt.Fprintf(log, "extracting %s into %s…\n", tarball, dir)
	tmp := dir + ".tmp"
	for _, d := range []string{dir, tmp} {
		if err := os.RemoveAll(d); err != nil {
			return lt, fmt.Errorf("prepare %s: %w", d, err)
		}
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return lt, fmt.Errorf("prepare %s: %w", tmp, err)
	}
	t0 := time.Now()
	cmd := exec.Command("tar", "-xJf", tarball, "-C", tmp)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return lt, fmt.Errorf("extract %s: %w", tarball, err)
	}
	top, err := os.ReadDir(tmp)
	if err != nil || len(top) != 1 || !top[0].IsDir() {
		return lt, fmt.Errorf("extract %s: expected one top directory in %s", tarball, tmp)
	}
	if err := os.Rename(filepath.Join(tmp, top[0].Name()), dir); err != nil {
		return lt, fmt.Errorf("prepare %s: %w", dir, err)
	}
	_ = os.Remove(tmp)
	lt = linuxTree{Dir: dir, Tar: tarball, TarSize: fi.Size(), Version: linuxVersion}
	if lt.Removed, err = dropDebianLines(filepath.Join(dir, ".gitignore")); err != nil {
		return lt, err
	}
	fmt.Fprintf(log, "extracted in %v; removed %d packaging lines from .gitignore\n", time.Since(t0).Round(time.Second), lt.Removed)
	b, _ := json.Marshal(lt)
	if err := os.WriteFile(stamp, b, 0o644); err != nil {
		return lt, fmt.Errorf("prepare %s: %w", stamp, err)
	}
	return lt, nil
}

// dropDebianLines removes debianLines from the ignore file p, keeping its
// modification time (so the newest-first order is the tarball's).
func dropDebianLines(p string) (int, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return 0, fmt.Errorf("linux tree: %w", err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return 0, fmt.Errorf("linux tree: %w", err)
	}
	var kept []string
	removed := 0
	for _, l := range strings.Split(string(data), "\n") {
		if debianLines[strings.TrimSpace(l)] {
			removed++
			continue
		}
		kept = append(kept, l)
	}
	if err := os.WriteFile(p, []byte(strings.Join(kept, "\n")), fi.Mode().Perm()); err != nil {
		return 0, fmt.Errorf("linux tree: %w", err)
	}
	return removed, os.Chtimes(p, fi.ModTime(), fi.ModTime())
}

// linuxRoot returns the Linux tree's directory.
func linuxRoot(b *bench) (string, error) {
	if b.linux == nil {
		lt, err := prepareLinuxTree(b.cfg.cache, b.cfg.linuxTar, b.log)
		if err != nil {
			return "", err
		}
		b.linux = &lt
	}
	return b.linux.Dir, nil
}

// needsLinux runs a Linux row when the tarball is installed; otherwise the
// row is left unmeasured and says how to install it (the missing-peer line
// names the package too).
func needsLinux(run func(*bench, *Row) error) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		if b.missing[linuxPackage] {
			r.Note = fmt.Sprintf("no %s: apt-get install %s", b.cfg.linuxTar, linuxPackage)
			return nil
		}
		if err := run(b, r); err != nil {
			return err
		}
		if r.Note != "" {
			r.Note = linuxNote + "; " + r.Note
		} else {
			r.Note = linuxNote
		}
		return nil
	}
}

// coldCallVsPeer measures the first call of a fresh server on the root
// (server start and initialize not timed) against the peer. Each run has a
// data dir of its own, so no file table or index an earlier run left is
// found (the known-tree rows measure that).
func coldCallVsPeer(root func(*bench) (string, error), method string, params map[string]any, argv []string, check func(res json.RawMessage, peer []byte) string) func(*bench, *Row) error {
	return func(b *bench, r *Row) error {
		dir, err := root(b)
		if err != nil {
			return err
		}
		call := freshCall(func() (*server, error) {
			data, err := os.MkdirTemp(b.stateDir, "cold-")
			if err != nil {
				return nil, err
			}
			return startServer(serverConfig{bin: b.bin, root: dir, dataDir: data})
		}, method, params)
		return timeCallVsPeer(b, r, dir, call, argv, check)
	}
}

// freshCall returns a call on a server start starts, closed after it:
// the first call of a new server (its start and initialize not timed).
func freshCall(start func() (*server, error), method string, params map[string]any) func() (json.RawMessage, time.Duration, error) {
	return func() (json.RawMessage, time.Duration, error) {
		s, err := start()
		if err != nil {
			return nil, 0, err
		}
		res, d, err := s.call(method, params)
		if cerr := s.close(); err == nil {
			err = cerr
		}
		return res, d, err
	}
}

// tableMemory measures what the file table of the Linux tree costs a
// server: VmRSS after its second glob (the table built, the server idle
// again) minus VmRSS after initialize, and its inotify watches.
func tableMemory(b *bench, r *Row) error {
	dir, err := linuxRoot(b)
	if err != nil {
		return err
	}
	s, err := b.fresh(dir)
	if err != nil {
		return err
	}
	defer s.close()
	idle, err := statusBytes(s.pid(), "VmRSS")
	if err != nil {
		return err
	}
	// The first glob walks; the table is built once it has answered, and
	// the second waits for that build.
	for range 2 {
		if _, _, err := s.call("tools/glob", map[string]any{"pattern": "**/*.c"}); err != nil {
			return err
		}
	}
	time.Sleep(tableSettle)
	built, err := statusBytes(s.pid(), "VmRSS")
	if err != nil {
		return err
	}
	watches, err := inotifyWatches(s.pid())
	if err != nil {
		return err
	}
	r.ToolrpcValue, r.Runs, r.measured = float64(built-idle)/(1<<20), 1, true
	r.Note = fmt.Sprintf("VmRSS %.1f MB after initialize, %.1f MB %v after the second glob; %d inotify watches",
		float64(idle)/(1<<20), float64(built)/(1<<20), tableSettle, watches)
	return nil
}

// tableSettle is how long the memory row lets the server idle after the
// build before reading its RSS.
const tableSettle = 2 * time.Second

// inotifyWatches counts the watches of every inotify descriptor of pid.
func inotifyWatches(pid int) (int, error) {
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(fdDir, e.Name())); err != nil || l != "anon_inode:inotify" {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, e.Name()))
		if err != nil {
			return 0, err
		}
		n += strings.Count(string(info), "inotify wd:")
	}
	return n, nil
}
