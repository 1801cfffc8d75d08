package rpc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// procRoot is where process status files are read; tests point it at a
// fake tree.
var procRoot = "/proc"

// isAncestor reports whether pid is a strict ancestor of the process self
// in this PID namespace: walking the parent chain from self's parent through
// procRoot/<pid>/stat reaches pid. A chain that leaves the namespace (a
// parent pid of 0, as a process started by `podman exec` or `docker exec`
// sees) or cannot be read ends the walk with false, so a processId from
// another machine or namespace is never taken for the host.
func isAncestor(pid, self int) bool {
	if pid <= 0 {
		return false
	}
	seen := map[int]bool{}
	for p := parentOf(self); p > 0 && !seen[p]; p = parentOf(p) {
		if p == pid {
			return true
		}
		seen[p] = true
	}
	return false
}

// parentOf is pid's parent pid from procRoot/<pid>/stat, 0 when unknown.
// The command name (field 2) may hold spaces and parentheses, so the fields
// are read after its last ')'.
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", procRoot, pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:]) // state, ppid, …
	if len(f) < 2 {
		return 0
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return 0
	}
	return ppid
}
