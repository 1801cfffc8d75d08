package atomicfile

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestKilledWriterLeavesNoTempFile: a writer killed between Create and
// Commit leaves the target as it was and, on Linux, nothing beside it (the
// content lives in an unnamed O_TMPFILE file until Commit). The fault
// campaign (cmd/toolrpc-chaos) found ".e1.txt.toolrpc-N.tmp" files in the
// workspace after every server SIGKILL during an edit, and nothing removed
// them.
func TestKilledWriterLeavesNoTempFile(t *testing.T) {
	if target := os.Getenv("ATOMICFILE_KILLED_WRITER"); target != "" {
		a, err := Create(target, 0o644)
		if err != nil {
			os.Exit(2)
		}
		_, _ = a.Write([]byte("half of the new content"))
		os.Stdout.WriteString("writing\n")
		time.Sleep(time.Minute)
		os.Exit(3)
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "e1.txt")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o644))
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLeavesNoTempFile$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_KILLED_WRITER="+target)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "writing\n", line)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()

	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "old\n", string(got), "the target is untouched")
	if unnamedFiles {
		requireNoTemp(t, dir)
	} else {
		t.Log("no O_TMPFILE in this build: one named temporary file may remain, as the package doc says")
	}
}
