package search

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sourceText returns about 1 MiB of source-like text: identifiers in both
// cases, an upper-case 'U' about once in 100 bytes (in PM_SUSPEND), never
// next to 'M'.
func sourceText() []byte {
	words := []string{"static ", "int ", "return ", "struct device *dev", "PM_SUSPEND", "pm_runtime_get", "(void)", ";\n", "\t", "if (err)", "Resume", "EXPORT_SYMBOL_GPL"}
	var text []byte
	for i := 0; len(text) < 1<<20; i++ {
		text = append(text, words[(i*7+i/3)%len(words)]...)
	}
	return text
}

// treeText returns up to 16 MiB of the .c and .h files of
// $TOOLRPC_BENCH_TREE (in walk order), or nil when it is not set.
func treeText(b *testing.B) []byte {
	root := os.Getenv("TOOLRPC_BENCH_TREE")
	if root == "" {
		return nil
	}
	var text []byte
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || len(text) >= 16<<20 {
			return fs.SkipAll
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(path, ".c") && !strings.HasSuffix(path, ".h") {
			return nil
		}
		data, err := os.ReadFile(path)
		text = append(text, data...)
		return err
	})
	if err != nil && err != fs.SkipAll {
		b.Fatal(err)
	}
	return text
}

// BenchmarkPairFind counts the occurrences of PM_RESUME and _RESUME with
// Matcher.find, exact and folding case, in source-like text (where the
// exact scan's rare byte 'U' is common), in the same text lower-cased
// (where 'U' is absent) and in the C files of $TOOLRPC_BENCH_TREE when set.
func BenchmarkPairFind(b *testing.B) {
	src := sourceText()
	texts := []struct {
		name string
		text []byte
	}{{"source", src}, {"lower", bytes.ToLower(src)}, {"tree", treeText(b)}}
	for _, tx := range texts {
		if tx.text == nil {
			continue
		}
		for _, fold := range []bool{false, true} {
			for _, lit := range []string{"PM_RESUME", "_RESUME"} {
				m, err := Compile(lit, fold, false)
				if err != nil {
					b.Fatal(err)
				}
				name := tx.name + "/exact/" + lit
				if fold {
					name = tx.name + "/fold/" + lit
				}
				b.Run(name, func(b *testing.B) {
					b.SetBytes(int64(len(tx.text)))
					for b.Loop() {
						for pos := 0; ; pos++ {
							if pos = m.find(tx.text, pos); pos < 0 {
								break
							}
						}
					}
				})
			}
		}
	}
}
