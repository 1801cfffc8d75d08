package rpc

import "golang.org/x/sys/unix"

// zombie reports whether pid has exited but is not reaped yet (p_stat SZOMB
// in its kern.proc.pid entry).
func zombie(pid int) bool {
	const sZomb = 5
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && k.Proc.P_pid == int32(pid) && k.Proc.P_stat == sZomb
}
