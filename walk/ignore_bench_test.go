package walk

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolrpc/toolrpc/internal/gitignore"
)

// benchGitignore is a typical web/Go project .gitignore.
var benchGitignore = strings.Join([]string{
	"node_modules/", "dist/", "build/", "coverage/", "*.log", "*.tmp", ".DS_Store",
	"/vendor/", "*.test", "*.out", "bin/", "!bin/keep.sh", "**/__pycache__/", "*.py[cod]",
	".env", ".env.*", "!.env.example", "docs/_build/", "target/**", "*.swp", "*~",
	"/tmp/", "**/generated/*.go", "!**/generated/keep.go", ".idea/", ".vscode/*", "!.vscode/settings.json",
}, "\n") + "\n"

// benchPaths are absolute paths below /ws a walk asks about, most kept.
func benchPaths() []string {
	var ps []string
	for i := 0; i < 200; i++ {
		ps = append(ps,
			fmt.Sprintf("/ws/src/pkg%d/file%d.go", i%17, i),
			fmt.Sprintf("/ws/src/pkg%d/generated/g%d.go", i%17, i),
			fmt.Sprintf("/ws/web/app/c%d.tsx", i),
			fmt.Sprintf("/ws/logs/run%d.log", i),
			fmt.Sprintf("/ws/d%d/.env.local", i),
		)
	}
	return ps
}

// BenchmarkIgnoreMatch measures one ignore verdict against a typical
// .gitignore plus a nested one (ns/op is per path; the same paths and rules
// as the go-git matcher this replaced was measured with).
func BenchmarkIgnoreMatch(b *testing.B) {
	top := &ignoreSet{git: []layer{newLayer(gitignore.Compile("/ws/.gitignore", []byte(benchGitignore)), "/ws")}}
	web := &ignoreSet{git: append(top.git[:1:1], newLayer(gitignore.Compile("/ws/web/.gitignore", []byte("*.snap\n!keep.snap\n")), "/ws/web"))}
	paths := benchPaths()
	sets := make([]*ignoreSet, len(paths))
	for i, p := range paths {
		sets[i] = top
		if strings.HasPrefix(p, "/ws/web/") {
			sets[i] = web
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		sets[i%len(paths)].ignored(paths[i%len(paths)], false)
	}
}

// BenchmarkParseRules measures compiling the typical .gitignore.
func BenchmarkParseRules(b *testing.B) {
	data := []byte(benchGitignore)
	b.ReportAllocs()
	for b.Loop() {
		gitignore.Compile("/ws/sub/.gitignore", data)
	}
}

// BenchmarkWalkIgnoredTree walks a workspace whose node_modules/ holds
// nearly all files and is ignored: the cost should track the kept files.
func BenchmarkWalkIgnoredTree(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{".gitignore": benchGitignore}
	for i := 0; i < 100; i++ {
		files[fmt.Sprintf("src/m%d/f%d.js", i%10, i)] = "x\n"
	}
	for p := 0; p < 300; p++ {
		for j := 0; j < 10; j++ {
			files[fmt.Sprintf("node_modules/p%d/lib/f%d.js", p, j)] = "x\n"
		}
	}
	writeTree(b, dir, files)
	b.ResetTimer()
	for b.Loop() {
		got, err := Walk(context.Background(), Options{Start: dir, Boundary: dir})
		if err != nil || len(got) != 101 {
			b.Fatalf("walk: %d files, %v", len(got), err)
		}
	}
}

// BenchmarkSniff sniffs the start of a source file: with a non-ASCII
// letter on every line, and all ASCII with tabs and newlines (the common
// case of a source tree).
func BenchmarkSniff(b *testing.B) {
	for _, c := range []struct{ name, line string }{
		{"utf8", "func main() { fmt.Println(\"héllo\") }\n"},
		{"ascii", "\tif (err < 0)\n\t\treturn dev_err_probe(dev, err, \"no clock\");\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			head := []byte(strings.Repeat(c.line, 120))[:4096]
			b.SetBytes(int64(len(head)))
			for b.Loop() {
				if bin, _ := Sniff(head, false); bin {
					b.Fatal("text sniffed as binary")
				}
			}
		})
	}
}
