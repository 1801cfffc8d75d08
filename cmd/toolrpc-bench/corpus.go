package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// corpusVersion changes whenever a generator below changes, so stale
// cached corpora are rebuilt.
const corpusVersion = 2

// bigFile is the generated large text file of the read scenarios.
type bigFile struct {
	Dir     string `json:"-"` // the directory holding only the file (the server's root)
	Name    string `json:"name"`
	Bytes   int64  `json:"bytes"`
	Lines   int64  `json:"lines"`
	Version int    `json:"version"`
}

// prepareBigFile returns the cached text file of about size bytes under
// cache, generating it when missing. Lines are 1..48 bytes of
// pseudo-random letters and spaces plus "\n" (25.5 bytes on average), so
// 1e9 bytes hold about 40M lines.
func prepareBigFile(cache string, size int64, log io.Writer) (bigFile, error) {
	dir := filepath.Join(cache, fmt.Sprintf("big-%d", size))
	stamp := filepath.Join(cache, fmt.Sprintf("big-%d.json", size))
	var bf bigFile
	if b, err := os.ReadFile(stamp); err == nil && json.Unmarshal(b, &bf) == nil && bf.Version == corpusVersion {
		if fi, err := os.Stat(filepath.Join(dir, bf.Name)); err == nil && fi.Size() == bf.Bytes {
			bf.Dir = dir
			return bf, nil
		}
	}
	fmt.Fprintf(log, "generating %s (%d bytes)…\n", dir, size)
	t0 := time.Now()
	if err := os.RemoveAll(dir); err != nil {
		return bf, fmt.Errorf("prepare %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return bf, fmt.Errorf("prepare %s: %w", dir, err)
	}
	bf = bigFile{Dir: dir, Name: "big.txt", Version: corpusVersion}
	p := filepath.Join(dir, bf.Name)
	f, err := os.Create(p)
	if err != nil {
		return bf, fmt.Errorf("generate %s: %w", p, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	const alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789 "
	x := uint64(0x9e3779b97f4a7c15)
	line := make([]byte, 0, 64)
	for bf.Bytes < size {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		n := 1 + int(x%48)
		line = line[:0]
		r := x
		for i := 0; i < n; i++ {
			if i%8 == 0 {
				r = r*6364136223846793005 + 1442695040888963407
			}
			line = append(line, alphabet[(r>>(8*(i%8)))%uint64(len(alphabet))])
		}
		line = append(line, '\n')
		w.Write(line)
		bf.Bytes += int64(len(line))
		bf.Lines++
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return bf, fmt.Errorf("generate %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		return bf, fmt.Errorf("generate %s: %w", p, err)
	}
	// An old mtime keeps the server's racy-timestamp guard from distrusting
	// the index of a file written moments ago.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		return bf, fmt.Errorf("generate %s: %w", p, err)
	}
	b, _ := json.Marshal(bf)
	if err := os.WriteFile(stamp, b, 0o644); err != nil {
		return bf, fmt.Errorf("generate %s: %w", stamp, err)
	}
	fmt.Fprintf(log, "generated %s: %d lines in %v\n", p, bf.Lines, time.Since(t0).Round(time.Millisecond))
	return bf, nil
}

// nodeTree is the generated workspace whose node_modules/ is ignored.
type nodeTree struct {
	Dir        string `json:"-"`
	Packages   int    `json:"packages"`
	SrcFiles   int    `json:"srcFiles"`
	NodeFiles  int    `json:"nodeFiles"`
	SrcHits    int    `json:"srcHits"`  // src files holding nodeNeedle
	NodeHits   int    `json:"nodeHits"` // node_modules files holding nodeNeedle
	Version    int    `json:"version"`
	TotalBytes int64  `json:"totalBytes"`
}

// nodeNeedle is the string the node-tree grep rows search for.
const nodeNeedle = "TODO(bench)"

// filesPerPackage is the number of files of one generated package.
const filesPerPackage = 12

// prepareNodeTree returns the cached workspace of pkgs packages under
// node_modules/ (ignored by the root .gitignore, in a tree holding a .git
// directory so that every peer honours the rule) and pkgs/10+10 source files
// with distinct mtimes under src/.
func prepareNodeTree(cache string, pkgs int, log io.Writer) (nodeTree, error) {
	dir := filepath.Join(cache, fmt.Sprintf("nodetree-%d", pkgs))
	stamp := dir + ".json"
	var nt nodeTree
	if b, err := os.ReadFile(stamp); err == nil && json.Unmarshal(b, &nt) == nil && nt.Version == corpusVersion {
		if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err == nil {
			nt.Dir = dir
			return nt, nil
		}
	}
	fmt.Fprintf(log, "generating %s…\n", dir)
	if err := os.RemoveAll(dir); err != nil {
		return nt, fmt.Errorf("prepare %s: %w", dir, err)
	}
	nt = nodeTree{Dir: dir, Packages: pkgs, Version: corpusVersion}
	write := func(rel string, data []byte, mtime time.Time) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("generate %s: %w", p, err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("generate %s: %w", p, err)
		}
		nt.TotalBytes += int64(len(data))
		return os.Chtimes(p, mtime, mtime)
	}
	base := time.Now().Add(-24 * time.Hour)
	if err := write(".gitignore", []byte("node_modules/\n*.log\n"), base); err != nil {
		return nt, err
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git", "info"), 0o755); err != nil {
		return nt, fmt.Errorf("generate %s: %w", dir, err)
	}
	if err := write(".git/HEAD", []byte("ref: refs/heads/main\n"), base); err != nil {
		return nt, err
	}
	src := pkgs/10 + 10
	for i := 0; i < src; i++ {
		hit := i%3 == 0
		if hit {
			nt.SrcHits++
		}
		nt.SrcFiles++
		if err := write(fmt.Sprintf("src/mod%02d/file%04d.js", i%10, i), jsFile(i, hit), base.Add(time.Duration(i)*time.Second)); err != nil {
			return nt, err
		}
	}
	for p := 0; p < pkgs; p++ {
		for j := 0; j < filesPerPackage; j++ {
			name := fmt.Sprintf("node_modules/pkg%05d/lib/f%02d.js", p, j)
			var data []byte
			switch j {
			case 0:
				name = fmt.Sprintf("node_modules/pkg%05d/package.json", p)
				data = fmt.Appendf(nil, "{\"name\": \"pkg%05d\", \"version\": \"1.0.%d\", \"main\": \"lib/f01.js\"}\n", p, p)
			case 1:
				name = fmt.Sprintf("node_modules/pkg%05d/.gitignore", p)
				data = []byte("*.log\nbuild/\n")
			default:
				hit := p%8 == 0 && j == 2 // few enough that every hit fits one result
				if hit {
					nt.NodeHits++
				}
				data = jsFile(p*filesPerPackage+j, hit)
			}
			nt.NodeFiles++
			if err := write(name, data, base.Add(-time.Duration(p)*time.Second)); err != nil {
				return nt, err
			}
		}
	}
	b, _ := json.Marshal(nt)
	if err := os.WriteFile(stamp, b, 0o644); err != nil {
		return nt, fmt.Errorf("generate %s: %w", stamp, err)
	}
	return nt, nil
}

// jsFile returns a ~2 KB JavaScript source; hit puts nodeNeedle in it.
func jsFile(seed int, hit bool) []byte {
	var b []byte
	for k := 0; k < 40; k++ {
		b = fmt.Appendf(b, "export function f%d_%d(a, b) { return a * %d + b; }\n", seed, k, seed+k)
		if hit && k == 20 {
			b = append(b, "// "+nodeNeedle+": tidy this up\n"...)
		}
	}
	return b
}

// prepareGoTree checks that the Go source tree exists.
func prepareGoTree(goroot string) error {
	fi, err := os.Stat(filepath.Join(goroot, "src"))
	if err != nil {
		return fmt.Errorf("go tree %s: %w", goroot, err)
	}
	if !fi.IsDir() {
		return errors.New("go tree " + goroot + ": src is not a directory")
	}
	return nil
}
