package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// globReply is GlobResult of SPEC §5.
type globReply struct {
	Matches   []string `json:"matches"`
	Count     int      `json:"count"`
	Truncated bool     `json:"truncated"`
	Notice    string   `json:"notice"`
}

// TestGlobLimitAndErrors checks SPEC §2, §5: glob's limit, paging and errors.
func TestGlobLimitAndErrors(t *testing.T) {
	s := start(t)
	var files [][2]string
	for i := 0; i < 120; i++ {
		files = append(files, [2]string{"d/f" + itoaC(1000+i) + ".go", ""})
	}
	files = append(files, [2]string{"d/readme.md", ""})
	grepWrite(t, s.Root, files)

	def := decode[globReply](t, s.call(t, "tools/glob", map[string]any{"pattern": "**/*.go"}))
	require.Len(t, def.Matches, 100)
	require.Equal(t, "d/f1000.go", def.Matches[0])
	require.True(t, def.Truncated)
	require.Equal(t, "Showing 100 of 120 files (limit=100). Next: offset=100, or narrow the pattern/path.", def.Notice)

	rest := decode[globReply](t, s.call(t, "tools/glob", map[string]any{"pattern": "**/*.go", "offset": 100, "limit": 1000}))
	require.Len(t, rest.Matches, 20)
	require.False(t, rest.Truncated)

	for _, bad := range []map[string]any{
		{"pattern": "**/*.go", "limit": 0},
		{"pattern": "**/*.go", "limit": 1001},
		{"pattern": "**/*.go", "offset": -1},
		{"pattern": "[unclosed"},
	} {
		e := s.callErr(t, "tools/glob", bad)
		require.Equal(t, "INVALID_ARGUMENT", e.Kind, "%v", bad)
	}
	e := s.callErr(t, "tools/glob", map[string]any{"pattern": "*", "path": "/etc"})
	require.Equal(t, "PERMISSION_DENIED", e.Kind)
}
