//go:build linux

package confine

import (
	"syscall"
	"unsafe"
)

// The kernel's numbers this package needs that the frozen syscall package
// lacks. They are golang.org/x/sys/unix's, written out because importing
// that package would make this package's init wait for a hundred others
// (see the package doc); sys_linux_test.go checks each against it.
const (
	// Syscall numbers: from 424 on, one table for every architecture.
	sysIOURingSetup          = 425
	sysIOURingEnter          = 426
	sysIOURingRegister       = 427
	sysOpenat2               = 437
	sysMountSetattr          = 442
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446
	sysFchmodat2             = 452

	atFDCWD     = -0x64
	atRecursive = 0x8000
	oPath       = 0x200000
	oTmpfile    = 0x400000 // __O_TMPFILE, without O_DIRECTORY

	mountAttrRdonly = 0x1
	mountAttrNosuid = 0x2
	mountAttrNodev  = 0x4

	prSetNoNewPrivs       = 0x26
	prCapAmbient          = 0x2f
	prCapAmbientClearAll  = 0x4
	seccompModeFilter     = 0x2
	seccompRetKillProcess = 0x80000000
	seccompRetErrno       = 0x50000
	seccompRetAllow       = 0x7fff0000
	auditArchX86_64       = 0xc000003e
	auditArchAarch64      = 0xc00000b7

	capLastCap              = 0x28
	linuxCapabilityVersion3 = 0x20080522

	landlockRulePathBeneath = 0x1

	landlockAccessFSExecute    = 0x1
	landlockAccessFSWriteFile  = 0x2
	landlockAccessFSReadFile   = 0x4
	landlockAccessFSReadDir    = 0x8
	landlockAccessFSRemoveDir  = 0x10
	landlockAccessFSRemoveFile = 0x20
	landlockAccessFSMakeChar   = 0x40
	landlockAccessFSMakeDir    = 0x80
	landlockAccessFSMakeReg    = 0x100
	landlockAccessFSMakeSock   = 0x200
	landlockAccessFSMakeFifo   = 0x400
	landlockAccessFSMakeBlock  = 0x800
	landlockAccessFSMakeSym    = 0x1000
	landlockAccessFSRefer      = 0x2000
	landlockAccessFSTruncate   = 0x4000
	landlockAccessFSIoctlDev   = 0x8000

	landlockAccessNetBindTCP    = 0x1
	landlockAccessNetConnectTCP = 0x2

	landlockScopeAbstractUnixSocket = 0x1
	landlockScopeSignal             = 0x2
)

// errno returns e as an error, nil for 0.
func errno(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// prctl is prctl(2).
func prctl(option int, arg2, arg3, arg4, arg5 uintptr) error {
	_, _, e := syscall.Syscall6(syscall.SYS_PRCTL, uintptr(option), arg2, arg3, arg4, arg5, 0)
	return errno(e)
}

// mountAttr is struct mount_attr.
type mountAttr struct {
	attrSet, attrClr, propagation, usernsFD uint64
}

// mountSetattr is mount_setattr(2) on path, recursively.
func mountSetattr(path string, attr *mountAttr, flags uintptr) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	dirfd := atFDCWD
	_, _, e := syscall.Syscall6(sysMountSetattr, uintptr(dirfd), uintptr(unsafe.Pointer(p)), flags,
		uintptr(unsafe.Pointer(attr)), unsafe.Sizeof(*attr), 0)
	return errno(e)
}

// pathBeneathAttr is struct landlock_path_beneath_attr (packed: the kernel
// reads its first 12 bytes).
type pathBeneathAttr struct {
	allowedAccess uint64
	parentFD      int32
}

// capHeader and capData are struct __user_cap_header_struct and
// __user_cap_data_struct.
type (
	capHeader struct {
		version uint32
		pid     int32
	}
	capData struct {
		effective, permitted, inheritable uint32
	}
)

// capsetNone empties the calling thread's permitted, effective and
// inheritable capability sets.
func capsetNone() error {
	hdr := capHeader{version: linuxCapabilityVersion3}
	var data [2]capData
	_, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	return errno(e)
}
