package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
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

// statusBytes returns a field (in kB: "VmRSS", "VmHWM", "RssAnon") of
// /proc/<pid>/status in bytes. It is the bench's one reader of that file.
func statusBytes(pid int, field string) (int64, error) {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read status of %d: %w", pid, err)
	}
	kb, err := statusKB(st, field)
	if err != nil {
		return 0, fmt.Errorf("status of %d: %w", pid, err)
	}
	return kb * 1024, nil
}

// cpuTime returns the user + system CPU time pid itself has used (utime and
// stime of /proc/<pid>/stat; not its children's, reaped or not). It is the
// bench's one reader of that file.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	var ticks int64
	for _, i := range []int{11, 12} { // utime, stime (fields 14, 15)
		n, err := strconv.ParseInt(string(f[i]), 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil // USER_HZ is 100 on Linux
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
