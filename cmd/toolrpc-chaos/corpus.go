//go:build linux

package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// corpus holds hostile strings: the string and []byte values of the
// repository's fuzz corpora (internal/*/testdata/fuzz), by kind.
type corpus struct {
	byKind map[string][]string
}

// builtin are hostile strings used when no corpus is found.
var builtin = []string{"", "[", "(?", "\x00", "\xff\xfe", "a\r\nb", "**/", "../..", "\\", "é\u0301", strings.Repeat("x", 20000), "{a,b,c}", "!*"}

// loadCorpus reads the fuzz corpora under repo/internal; kinds are chosen
// by the fuzz target's name.
func loadCorpus(repo string) *corpus {
	c := &corpus{byKind: map[string][]string{}}
	files, _ := filepath.Glob(filepath.Join(repo, "internal", "*", "testdata", "fuzz", "*", "*"))
	sort.Strings(files)
	for _, f := range files {
		target := filepath.Base(filepath.Dir(f))
		kind := "text"
		switch {
		case strings.Contains(target, "Ignore") || strings.Contains(target, "MatchVsGit"):
			kind = "ignore"
		case strings.Contains(target, "Glob"):
			kind = "glob"
		case strings.Contains(target, "Match") || strings.Contains(target, "Plan"):
			kind = "pattern"
		case strings.Contains(target, "Resolve"):
			kind = "path"
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			var q string
			switch {
			case strings.HasPrefix(line, "string(") && strings.HasSuffix(line, ")"):
				q = line[len("string(") : len(line)-1]
			case strings.HasPrefix(line, "[]byte(") && strings.HasSuffix(line, ")"):
				q = line[len("[]byte(") : len(line)-1]
			default:
				continue
			}
			if s, err := strconv.Unquote(q); err == nil {
				c.byKind[kind] = append(c.byKind[kind], s)
				c.byKind["text"] = append(c.byKind["text"], s)
			}
		}
	}
	return c
}

// pick returns a hostile string of kind (any kind when it has none).
func (c *corpus) pick(rng *rand.Rand, kind string) string {
	l := c.byKind[kind]
	if len(l) == 0 {
		l = c.byKind["text"]
	}
	if len(l) == 0 || rng.IntN(8) == 0 {
		return builtin[rng.IntN(len(builtin))]
	}
	return l[rng.IntN(len(l))]
}

// findRepo returns the module root above dir holding internal/, or "".
func findRepo(dir string) string {
	for range 10 {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}
