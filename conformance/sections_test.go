package conformance

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// namesSection is what a test's doc comment must hold: a section of
// docs/protocol.md (docs' TestSectionReferencesResolve checks that it
// exists), or the words saying it tests the suite itself.
var namesSection = regexp.MustCompile(`§\d+|harness self-test`)

// TestEveryTestNamesItsSection checks that every test of the suite says in
// its doc comment which section of docs/protocol.md it checks (SPEC §1–§13),
// so a reader can go from a failing test to the contract and back. The data
// cases name theirs on a "Section:" line (runTxtar).
func TestEveryTestNamesItsSection(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	fset := token.NewFileSet()
	var missing []string
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
				continue
			}
			if fn.Doc == nil || !namesSection.MatchString(fn.Doc.Text()) {
				missing = append(missing, fset.Position(fn.Pos()).String()+": "+fn.Name.Name)
			}
		}
	}
	require.Empty(t, strings.Join(missing, "\n"), "tests whose doc comment names no SPEC §N")
}
