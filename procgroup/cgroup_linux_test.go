//go:build linux && !toolrpc_portable

package procgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSweepStaleCgroups: a call cgroup of a dead server that still holds
// processes is killed and removed. Before the fix rmdir failed on it and the
// processes lived on.
func TestSweepStaleCgroups(t *testing.T) {
	if !useCgroup() {
		t.Log("cgroup v2 with cgroup.kill is not usable here: no call cgroup can be left behind; TestSweepStaleCookies covers this machine")
		return
	}
	dir := filepath.Join(cgroupBase, fmt.Sprintf("toolrpc-%d-1", deadPid(t)))
	require.NoError(t, os.Mkdir(dir, 0o755))
	t.Cleanup(func() { _ = os.Remove(dir) })
	s := sleeper(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(s.Process.Pid)), 0))
	sweepStaleCgroups(cgroupBase)
	require.False(t, aliveProc(s.Process.Pid), "process of a stale call cgroup alive")
	_, err := os.Stat(dir)
	require.True(t, os.IsNotExist(err), "stale call cgroup not removed")
}
