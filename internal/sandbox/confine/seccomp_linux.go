//go:build linux

package confine

import (
	"errors"
	"runtime"
	"syscall"
	"unsafe"
)

// auditArch is this build's AUDIT_ARCH, 0 where the filter is not built.
func auditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return auditArchX86_64
	case "arm64":
		return auditArchAarch64
	}
	return 0
}

// BPF opcodes of the filter.
const (
	bpfLdW  = syscall.BPF_LD | syscall.BPF_W | syscall.BPF_ABS
	bpfJeq  = syscall.BPF_JMP | syscall.BPF_JEQ | syscall.BPF_K
	bpfJge  = syscall.BPF_JMP | syscall.BPF_JGE | syscall.BPF_K
	bpfRet  = syscall.BPF_RET | syscall.BPF_K
	offNr   = 0  // seccomp_data.nr
	offArch = 4  // seccomp_data.arch
	offArg0 = 16 // seccomp_data.args[0], low half on little-endian
)

// networkOffFilter is the seccomp program of network off: socket() of any
// family but AF_UNIX and every io_uring call fail with EPERM; a foreign
// architecture or x32 call kills the process.
func networkOffFilter() ([]syscall.SockFilter, error) {
	arch := auditArch()
	if arch == 0 {
		return nil, errors.New("no seccomp filter for " + runtime.GOARCH)
	}
	deny := uint32(seccompRetErrno | uint32(syscall.EPERM))
	stmt := func(code uint16, k uint32) syscall.SockFilter { return syscall.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) syscall.SockFilter {
		return syscall.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
	}
	return []syscall.SockFilter{
		stmt(bpfLdW, offArch),
		jump(bpfJeq, arch, 1, 0),
		stmt(bpfRet, seccompRetKillProcess),
		stmt(bpfLdW, offNr),
		jump(bpfJge, 0x40000000, 0, 1), // x32 (amd64 only; no arm64 number reaches it)
		stmt(bpfRet, deny),
		jump(bpfJeq, sysIOURingSetup, 0, 1),
		stmt(bpfRet, deny),
		jump(bpfJeq, sysIOURingEnter, 0, 1),
		stmt(bpfRet, deny),
		jump(bpfJeq, sysIOURingRegister, 0, 1),
		stmt(bpfRet, deny),
		jump(bpfJeq, syscall.SYS_SOCKET, 1, 0),
		stmt(bpfRet, seccompRetAllow),
		stmt(bpfLdW, offArg0),
		jump(bpfJeq, syscall.AF_UNIX, 0, 1),
		stmt(bpfRet, seccompRetAllow),
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
	fprog := syscall.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := prctl(syscall.PR_SET_SECCOMP, seccompModeFilter, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return failed("seccomp", err)
	}
	return nil
}
