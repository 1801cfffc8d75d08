package procgroup

import (
	"bytes"
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// The process table on macOS comes from sysctl: kern.proc.all and
// kern.proc.pid for pid, parent, group, state and start time, and
// kern.procargs2 for the environment (readable for the user's own
// processes, which every process a command starts is).

// sZomb is a zombie's p_stat.
const sZomb = 5

func statOf(k *unix.KinfoProc) procStat {
	state := byte('R')
	if k.Proc.P_stat == sZomb {
		state = 'Z'
	}
	start := uint64(k.Proc.P_starttime.Sec)*1_000_000 + uint64(k.Proc.P_starttime.Usec)
	return procStat{pid: int(k.Proc.P_pid), ppid: int(k.Eproc.Ppid), pgrp: int(k.Eproc.Pgid), state: state, start: start}
}

// readStat returns pid's entry of the process table; start is in
// microseconds since the epoch.
func readStat(pid int) (procStat, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k.Proc.P_pid != int32(pid) {
		return procStat{}, false
	}
	return statOf(k), true
}

// listProcs returns every process's entry.
func listProcs() []procStat {
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]procStat, 0, len(ks))
	for i := range ks {
		out = append(out, statOf(&ks[i]))
	}
	return out
}

// readEnviron returns the environment block of pid ("K=V\x00...") from
// kern.procargs2: argc, the executable path, padding, argc arguments, then
// the environment.
func readEnviron(pid int) ([]byte, error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil, err
	}
	if len(b) < 4 {
		return nil, unix.EINVAL
	}
	argc := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	i := bytes.IndexByte(b, 0) // the executable path
	if i < 0 {
		return nil, unix.EINVAL
	}
	b = b[i:]
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	for ; argc > 0 && len(b) > 0; argc-- {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, nil
		}
		b = b[i+1:]
	}
	return b, nil
}

// inOwnPIDNamespace is always true: macOS has no PID namespaces.
func inOwnPIDNamespace(int) bool { return true }

// fionread is FIONREAD on macOS (_IOR('f', 127, int)); x/sys/unix does not
// name it for darwin.
const fionread = 0x4004667f
