package conformance

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnsizedFiles (issue 16 item 4, SPEC §4): files whose stat size is 0
// but that hold text — /proc files — are read to their end, by Read and by
// Grep; /sys attributes (which report a page size) keep working. Before the
// fix Read said "The file is empty (0 lines)" and Grep found nothing.
func TestUnsizedFiles(t *testing.T) {
	for _, p := range []string{"/proc/cpuinfo", "/proc/meminfo"} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		require.Zero(t, fi.Size(), "%s must report size 0 for this test to mean anything", p)
	}
	s := start(t, withExternalRoots("/proc", "/sys"))

	cpu := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "/proc/cpuinfo"}))
	require.Positive(t, cpu.LineCount)
	require.Equal(t, cpu.LineCount, cpu.TotalLines)
	require.Positive(t, cpu.FileBytes)
	require.Contains(t, cpu.Content, "processor")
	require.NotContains(t, cpu.Notice, "empty")

	mem := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "/proc/meminfo", "offset": 1, "limit": 1}))
	require.Equal(t, 1, mem.LineCount)
	require.Regexp(t, `\n1:MemTotal: +[0-9]+ kB`, mem.Content)
	require.Greater(t, mem.TotalLines, 10)

	counts := decode[grepCountReply](t, s.call(t, "tools/grep", map[string]any{"pattern": `^MemTotal:`, "path": "/proc/meminfo", "outputMode": "count"}))
	require.Equal(t, 1, counts.Count, "grep in /proc/meminfo: %+v", counts)
	files := decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": `^processor`, "path": "/proc/cpuinfo"}))
	require.Equal(t, []string{"/proc/cpuinfo"}, files.Files)

	// A /sys attribute reports a page size and holds a short line.
	const attr = "/sys/devices/system/cpu/online"
	want, err := os.ReadFile(attr)
	require.NoError(t, err)
	sys := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": attr}))
	require.Equal(t, 1, sys.TotalLines)
	require.True(t, strings.HasSuffix(sys.Content, "]\n1:"+string(want)), "%q", sys.Content)
	sysGrep := decode[grepCountReply](t, s.call(t, "tools/grep", map[string]any{"pattern": `[0-9]`, "path": attr, "outputMode": "count"}))
	require.Equal(t, 1, sysGrep.Count)
}
