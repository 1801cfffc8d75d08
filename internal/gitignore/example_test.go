package gitignore_test

import (
	"fmt"

	"github.com/toolrpc/toolrpc/internal/gitignore"
)

// ExampleCompile is the package doc's example (SPEC §5: git's ignore rules,
// exactly).
func ExampleCompile() {
	m := gitignore.Compile(".gitignore", []byte("*.log\n!keep.log\n/build/\n"))
	for _, c := range []struct {
		path  string
		isDir bool
	}{{"debug.log", false}, {"a/keep.log", false}, {"build", true}, {"src/build", true}, {"build", false}} {
		r := m.Match(c.path, c.isDir)
		switch {
		case r == nil:
			fmt.Printf("%s: no rule\n", c.path)
		case r.Negate:
			fmt.Printf("%s: kept by %s\n", c.path, r)
		default:
			fmt.Printf("%s: ignored by %s\n", c.path, r)
		}
	}
	// Output:
	// debug.log: ignored by .gitignore:1 *.log
	// a/keep.log: kept by .gitignore:2 !keep.log
	// build: ignored by .gitignore:3 /build/
	// src/build: no rule
	// build: no rule
}
