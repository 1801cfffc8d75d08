package attack

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParse checks the sections and fields of an attack file, and that a
// file without attack.sh or check.sh, with an unknown section or a section
// twice is refused.
func TestParse(t *testing.T) {
	c, err := Parse("x", "Rows: 7, 9\nPeers: yes\n-- policy.json --\n{\"network\":\"off\"}\n-- attack.sh --\necho a\n-- check.sh --\nexit 0\n")
	require.NoError(t, err)
	require.Equal(t, "7, 9", c.Field("Rows"))
	require.True(t, c.ForPeers())
	require.Equal(t, "both", c.Users())
	require.Equal(t, map[string]any{"network": "off"}, c.Policy)
	require.Equal(t, "echo a\n", c.Attack)
	require.Equal(t, "exit 0\n", c.Check)
	for _, bad := range []string{
		"-- attack.sh --\necho\n",
		"-- check.sh --\nexit 0\n",
		"-- attack.sh --\necho\n-- check.sh --\nexit 0\n-- nope.sh --\n",
		"-- attack.sh --\necho\n-- attack.sh --\necho\n-- check.sh --\nexit 0\n",
		"-- policy.json --\n{\n-- attack.sh --\necho\n-- check.sh --\nexit 0\n",
	} {
		_, err := Parse("bad", bad)
		require.Error(t, err, "%q", bad)
	}
}

// TestSuiteParses checks that every file of the repository's attack suite
// parses and names its rows and section.
func TestSuiteParses(t *testing.T) {
	cases, err := LoadAll("../../conformance/testdata/attacks")
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, c := range cases {
		require.NotEmpty(t, c.Field("Rows"), c.Name)
		require.True(t, strings.HasPrefix(c.Field("Section"), "§14"), c.Name)
	}
}

// FuzzParse checks that Parse never panics and that what it accepts has
// both required scripts.
func FuzzParse(f *testing.F) {
	f.Add("Rows: 1\n-- attack.sh --\necho\n-- check.sh --\nexit 0\n")
	f.Add("-- policy.json --\n{}\n-- attack.sh --\n-- check.sh --\n")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse("f", s)
		if err == nil && (strings.TrimSpace(c.Attack) == "" || strings.TrimSpace(c.Check) == "") {
			t.Fatalf("accepted without scripts: %q", s)
		}
	})
}
