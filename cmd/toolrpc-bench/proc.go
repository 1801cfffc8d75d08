package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// statusKB returns the value, in kB, of the field (e.g. "VmHWM") of a
// /proc/<pid>/status text.
func statusKB(status []byte, field string) (int64, error) {
	for _, line := range bytes.Split(status, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte(field+":"))
		if !ok {
			continue
		}
		v := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(rest)), "kB"))
		kb, err := strconv.ParseInt(v, 10, 64)
		if err != nil || kb < 0 {
			return 0, fmt.Errorf("parse %s %q: bad value", field, rest)
		}
		return kb, nil
	}
	return 0, fmt.Errorf("no %s field", field)
}

// peakRSS returns the peak resident set size (VmHWM) of pid in bytes.
func peakRSS(pid int) (int64, error) {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read status of %d: %w", pid, err)
	}
	kb, err := statusKB(st, "VmHWM")
	if err != nil {
		return 0, fmt.Errorf("status of %d: %w", pid, err)
	}
	return kb * 1024, nil
}

// markHolders returns the pids of live processes whose environment holds
// the string mark (zombies have an empty environ and do not count).
func markHolders(mark string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte(mark)) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(d))
		if err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
