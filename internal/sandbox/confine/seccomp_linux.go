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
	bpfJset = syscall.BPF_JMP | syscall.BPF_JSET | syscall.BPF_K
	bpfJa   = syscall.BPF_JMP | syscall.BPF_JA
	bpfRet  = syscall.BPF_RET | syscall.BPF_K
	offNr   = 0  // seccomp_data.nr
	offArch = 4  // seccomp_data.arch
	offArg0 = 16 // seccomp_data.args[0], low half on little-endian
)

// argOff is the offset of seccomp_data.args[i]'s low half (both
// architectures the filter is built for are little-endian; the kernel
// reads ioctl's request and a mode as 32 bits).
func argOff(i int) uint32 { return offArg0 + 8*uint32(i) }

// setID is S_ISUID|S_ISGID.
const setID = 0o6000

// Ioctl requests the filter refuses: pushing input into a terminal and the
// console's selection and keyboard calls.
const (
	ioctlTIOCSTI   = 0x5412
	ioctlTIOCLINUX = 0x541c
)

// argCheck refuses call nr with errno when its argument arg (low 32 bits)
// has a bit of mask set, or equals one of eq; when flagArg ≥ 0, only if
// that argument has a bit of flagMask set too (open's O_CREAT).
type argCheck struct {
	nr       uint32
	arg      int
	mask     uint32
	eq       []uint32
	flagArg  int
	flagMask uint32
	errno    syscall.Errno
}

// program assembles a filter: blocks appended in order, each falling
// through to the next when its call or argument does not match.
type program []syscall.SockFilter

func stmt(code uint16, k uint32) syscall.SockFilter { return syscall.SockFilter{Code: code, K: k} }

func jump(code uint16, k uint32, jt, jf uint8) syscall.SockFilter {
	return syscall.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
}

func retErrno(e syscall.Errno) syscall.SockFilter {
	return stmt(bpfRet, seccompRetErrno|uint32(e))
}

// deny refuses call nr with e (the accumulator holds nr).
func (p *program) deny(nr uint32, e syscall.Errno) {
	*p = append(*p, jump(bpfJeq, nr, 0, 1), retErrno(e))
}

// check appends c's block (the accumulator holds nr before and after).
func (p *program) check(c argCheck) {
	var body []syscall.SockFilter
	// body ends with: ld nr; ja 1; ret errno. A match jumps to the ret.
	if c.flagArg >= 0 {
		body = append(body, stmt(bpfLdW, argOff(c.flagArg)), jump(bpfJset, c.flagMask, 0, 0)) // jf patched below
	}
	body = append(body, stmt(bpfLdW, argOff(c.arg)))
	var matches []int // indexes of jumps whose jt goes to the ret
	if c.mask != 0 {
		matches = append(matches, len(body))
		body = append(body, jump(bpfJset, c.mask, 0, 0))
	}
	for _, v := range c.eq {
		matches = append(matches, len(body))
		body = append(body, jump(bpfJeq, v, 0, 0))
	}
	restore := len(body)
	body = append(body, stmt(bpfLdW, offNr), stmt(bpfJa, 1), retErrno(c.errno))
	ret := len(body) - 1
	for _, i := range matches {
		body[i].Jt = uint8(ret - i - 1)
	}
	if c.flagArg >= 0 {
		body[1].Jf = uint8(restore - 1 - 1) // no O_CREAT: to the restore
	}
	*p = append(*p, jump(bpfJeq, c.nr, 0, uint8(len(body))))
	*p = append(*p, body...)
}

// filter is the seccomp program every sandboxed command runs under: the
// terminal's TIOCSTI and TIOCLINUX, the kernel keyring calls, a mode with
// the set-user-id or set-group-id bit (chmod, and open, mknod on create),
// io_uring (which would do all of these unseen) and openat2 (whose mode the
// filter cannot read: ENOSYS, so callers fall back to openat) are refused;
// with networkOff, socket() of any family but AF_UNIX too. A foreign
// architecture or x32 call kills the process.
func filter(networkOff bool) ([]syscall.SockFilter, error) {
	arch := auditArch()
	if arch == 0 {
		return nil, errors.New("no seccomp filter for " + runtime.GOARCH)
	}
	p := program{
		stmt(bpfLdW, offArch),
		jump(bpfJeq, arch, 1, 0),
		stmt(bpfRet, seccompRetKillProcess),
		stmt(bpfLdW, offNr),
		jump(bpfJge, 0x40000000, 0, 1), // x32 (amd64 only; no arm64 number reaches it)
		retErrno(syscall.EPERM),
	}
	for _, nr := range []uint32{sysIOURingSetup, sysIOURingEnter, sysIOURingRegister,
		syscall.SYS_KEYCTL, syscall.SYS_ADD_KEY, syscall.SYS_REQUEST_KEY} {
		p.deny(nr, syscall.EPERM)
	}
	p.deny(sysOpenat2, syscall.ENOSYS)
	p.check(argCheck{nr: syscall.SYS_IOCTL, arg: 1, eq: []uint32{ioctlTIOCSTI, ioctlTIOCLINUX}, flagArg: -1, errno: syscall.EPERM})
	for _, c := range setIDChecks() {
		c.errno = syscall.EPERM
		p.check(c)
	}
	if networkOff {
		p = append(p,
			jump(bpfJeq, syscall.SYS_SOCKET, 1, 0),
			stmt(bpfRet, seccompRetAllow),
			stmt(bpfLdW, offArg0),
			jump(bpfJeq, syscall.AF_UNIX, 0, 1),
			stmt(bpfRet, seccompRetAllow),
			retErrno(syscall.EPERM),
		)
	}
	return append(p, stmt(bpfRet, seccompRetAllow)), nil
}

// setIDChecks are the calls that set a file's mode, and which argument
// holds it, on every architecture (setIDLegacy adds amd64's older calls).
func setIDChecks() []argCheck {
	create := uint32(syscall.O_CREAT | oTmpfile)
	return append([]argCheck{
		{nr: syscall.SYS_FCHMOD, arg: 1, mask: setID, flagArg: -1},
		{nr: syscall.SYS_FCHMODAT, arg: 2, mask: setID, flagArg: -1},
		{nr: sysFchmodat2, arg: 2, mask: setID, flagArg: -1},
		{nr: syscall.SYS_OPENAT, arg: 3, mask: setID, flagArg: 2, flagMask: create},
		{nr: syscall.SYS_MKNODAT, arg: 2, mask: setID, flagArg: -1},
	}, setIDLegacy(create)...)
}

// installFilter installs filter on the calling thread, which must have
// no_new_privs.
func installFilter(networkOff bool) error {
	prog, err := filter(networkOff)
	if err != nil {
		return err
	}
	fprog := syscall.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := prctl(syscall.PR_SET_SECCOMP, seccompModeFilter, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return failed("seccomp", err)
	}
	return nil
}
