package walk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocExamples runs the trees of the package documentation's Examples
// section (doc.go) and checks every verdict it states, so the documented
// precedence cannot drift from the code.
func TestDocExamples(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home) // no global excludes file of the machine
	t.Setenv("XDG_CONFIG_HOME", "")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	writeTree(t, dir, map[string]string{
		".gitignore":        "*.log\n!keep.log\n",
		".ignore":           "debug.log\n",
		".git/info/exclude": "build/\n",
		"sub/.gitignore":    "!*.log\n",
		"app.log":           "",
		"keep.log":          "",
		"debug.log":         "",
		"sub/app.log":       "",
		"sub/debug.log":     "",
		"build/x.go":        "",
	})
	require.Equal(t, []string{"keep.log", "sub/app.log"}, withoutDotfiles(walkRels(t, dir, dir)))

	for _, tc := range []struct {
		dir, name string
		want      string // the deciding rule, "" for none
		ignored   bool
	}{
		{"", "app.log", ".gitignore:1 *.log", true},
		{"", "keep.log", ".gitignore:2 !keep.log", false},
		{"", "debug.log", ".ignore:1 debug.log", true},
		{"sub", "app.log", "sub/.gitignore:1 !*.log", false},
		{"sub", "debug.log", ".ignore:1 debug.log", true},
		{"", "build", ".git/info/exclude:1 build/", true},
	} {
		ig := IgnoresFor(filepath.Join(dir, tc.dir), dir)
		r := ig.Rule(tc.name, tc.name == "build")
		got := ""
		if r != nil {
			got = strings.TrimPrefix(r.String(), dir+"/")
		}
		require.Equal(t, tc.want, got, "%s/%s", tc.dir, tc.name)
		require.Equal(t, tc.ignored, ig.Ignored(tc.name, tc.name == "build"), "%s/%s", tc.dir, tc.name)
	}

	// An explicit path into the excluded build/ lists what is below it.
	require.Equal(t, []string{"x.go"}, walkRels(t, filepath.Join(dir, "build"), dir))

	// A nested repository: none of the top's rules apply inside it.
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub", ".git"), 0o755))
	require.NoError(t, os.Remove(filepath.Join(dir, "sub", ".gitignore")))
	require.Equal(t, []string{"keep.log", "sub/app.log", "sub/debug.log"}, withoutDotfiles(walkRels(t, dir, dir)))
}

// withoutDotfiles drops the ignore files themselves from a listing.
func withoutDotfiles(rels []string) []string {
	var out []string
	for _, r := range rels {
		if b := filepath.Base(r); b != ".gitignore" && b != ".ignore" {
			out = append(out, r)
		}
	}
	return out
}
