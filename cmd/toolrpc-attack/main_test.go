package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/cli"
)

// TestMain runs the test binary as the server when it is started under the
// name toolrpc, so the tests below run the real server without a build.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "toolrpc" {
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestRowsJudgeTheSandbox checks that the command's verdict comes from the
// attack's check: the baseline is held under toolrpc's default policy, and
// the same attack under mode off (its policy.json) is escaped.
func TestRowsJudgeTheSandbox(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "toolrpc")
	require.NoError(t, os.Symlink(self, bin))
	base, err := os.ReadFile("../../conformance/testdata/attacks/direct-write-outside.txtar")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "held.txtar"), base, 0o644))
	off := strings.Replace(string(base), "-- attack.sh --", "-- policy.json --\n{\"mode\":\"off\"}\n-- attack.sh --", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "off.txtar"), []byte(off), 0o644))

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"--attacks", dir, "--toolrpc", bin, "--codex", "", "--srt", ""}, &stdout, &stderr), stderr.String())
	require.Equal(t, "| attack | rows | toolrpc |\n|---|---|---|\n"+
		"| held | baseline | held |\n"+
		"| off | baseline | escaped |\n"+
		"| **held or works** | of 2 | 1 |\n", stdout.String())
}
