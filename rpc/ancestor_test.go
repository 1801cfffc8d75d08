package rpc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIsAncestor walks fake stat files: a chain 40 → 30 → 20 → 1, a command
// name with spaces and parentheses, a process whose parent is outside the
// namespace (0, as under podman exec) and a loop.
func TestIsAncestor(t *testing.T) {
	root := t.TempDir()
	stat := map[int]string{
		40: "40 (a) b) S 30 40 40",
		30: "30 (sh) S 20 30 30",
		20: "20 (wrapper) S 1 20 20",
		1:  "1 (init) S 0 1 1",
		50: "50 (exec'd) S 0 50 50",
		60: "60 (loop) S 61 60 60",
		61: "61 (loop) S 60 61 61",
		70: "70 (torn", // no ')'
	}
	for pid, s := range stat {
		dir := filepath.Join(root, fmt.Sprint(pid))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(s+" 0 0 0\n"), 0o644))
	}
	saved := procRoot
	procRoot = root
	t.Cleanup(func() { procRoot = saved })
	for _, tc := range []struct {
		pid, self int
		want      bool
	}{
		{30, 40, true},
		{20, 40, true},
		{1, 40, true},
		{40, 40, false}, // not its own ancestor
		{99, 40, false}, // not in the chain
		{0, 40, false},
		{-1, 40, false},
		{1, 50, false}, // the chain leaves the namespace at once
		{20, 50, false},
		{1, 60, false}, // a loop ends the walk
		{1, 70, false}, // unreadable stat
		{1, 80, false}, // no such process
	} {
		t.Run(fmt.Sprintf("%d of %d", tc.pid, tc.self), func(t *testing.T) {
			require.Equal(t, tc.want, isAncestor(tc.pid, tc.self))
		})
	}
}

// TestIsAncestorLive checks the real /proc: this test's parent (go test) is
// an ancestor; a child and a sibling are not.
func TestIsAncestorLive(t *testing.T) {
	require.True(t, isAncestor(os.Getppid(), os.Getpid()))
	sib := exec.Command("sleep", "60")
	require.NoError(t, sib.Start())
	t.Cleanup(func() { _ = sib.Process.Kill(); _ = sib.Wait() })
	require.False(t, isAncestor(sib.Process.Pid, os.Getpid()), "a child is not an ancestor")
	require.True(t, isAncestor(os.Getpid(), sib.Process.Pid), "the test process is the child's parent")
	require.False(t, isAncestor(os.Getppid(), 1<<30), "no such process")
}
