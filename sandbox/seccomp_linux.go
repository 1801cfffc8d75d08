//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// auditArch is this build's AUDIT_ARCH, 0 where the filter is not built.
func auditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// BPF opcodes of the filter.
const (
	bpfLdW  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfRet  = unix.BPF_RET | unix.BPF_K
	offNr   = 0  // seccomp_data.nr
	offArch = 4  // seccomp_data.arch
	offArg0 = 16 // seccomp_data.args[0], low half on little-endian
)

// networkOffFilter is the seccomp program of network off: socket() of any
// family but AF_UNIX and every io_uring call fail with EPERM; a foreign
// architecture or x32 call kills the process.
func networkOffFilter() ([]unix.SockFilter, error) {
	arch := auditArch()
	if arch == 0 {
		return nil, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	deny := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
	}
	return []unix.SockFilter{
		stmt(bpfLdW, offArch),
		jump(bpfJeq, arch, 1, 0),
		stmt(bpfRet, unix.SECCOMP_RET_KILL_PROCESS),
		stmt(bpfLdW, offNr),
		jump(bpfJge, 0x40000000, 0, 1), // x32 (amd64 only; no arm64 number reaches it)
		stmt(bpfRet, deny),
		jump(bpfJeq, unix.SYS_IO_URING_SETUP, 0, 1),
		stmt(bpfRet, deny),
		jump(bpfJeq, unix.SYS_IO_URING_ENTER, 0, 1),
		stmt(bpfRet, deny),
		jump(bpfJeq, unix.SYS_IO_URING_REGISTER, 0, 1),
		stmt(bpfRet, deny),
		jump(bpfJeq, unix.SYS_SOCKET, 1, 0),
		stmt(bpfRet, unix.SECCOMP_RET_ALLOW),
		stmt(bpfLdW, offArg0),
		jump(bpfJeq, unix.AF_UNIX, 0, 1),
		stmt(bpfRet, unix.SECCOMP_RET_ALLOW),
		stmt(bpfRet, deny),
	}, nil
}

// installNetworkOff installs networkOffFilter on the calling thread, which
// must have no_new_privs.
func installNetworkOff() error {
	prog, err := networkOffFilter()
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}
