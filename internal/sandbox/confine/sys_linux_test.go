//go:build linux

package confine

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestNumbersAreUnix checks every kernel number sys_linux.go writes out
// against golang.org/x/sys/unix, which the package cannot import.
func TestNumbersAreUnix(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"SYS_IO_URING_SETUP", sysIOURingSetup, unix.SYS_IO_URING_SETUP},
		{"SYS_IO_URING_ENTER", sysIOURingEnter, unix.SYS_IO_URING_ENTER},
		{"SYS_IO_URING_REGISTER", sysIOURingRegister, unix.SYS_IO_URING_REGISTER},
		{"SYS_MOUNT_SETATTR", sysMountSetattr, unix.SYS_MOUNT_SETATTR},
		{"SYS_OPENAT2", sysOpenat2, unix.SYS_OPENAT2},
		{"SYS_FCHMODAT2", sysFchmodat2, unix.SYS_FCHMODAT2},
		{"__O_TMPFILE", oTmpfile, unix.O_TMPFILE &^ unix.O_DIRECTORY},
		{"SYS_LANDLOCK_CREATE_RULESET", sysLandlockCreateRuleset, unix.SYS_LANDLOCK_CREATE_RULESET},
		{"SYS_LANDLOCK_ADD_RULE", sysLandlockAddRule, unix.SYS_LANDLOCK_ADD_RULE},
		{"SYS_LANDLOCK_RESTRICT_SELF", sysLandlockRestrictSelf, unix.SYS_LANDLOCK_RESTRICT_SELF},
		{"AT_RECURSIVE", atRecursive, unix.AT_RECURSIVE},
		{"O_PATH", oPath, unix.O_PATH},
		{"MOUNT_ATTR_RDONLY", mountAttrRdonly, unix.MOUNT_ATTR_RDONLY},
		{"MOUNT_ATTR_NOSUID", mountAttrNosuid, unix.MOUNT_ATTR_NOSUID},
		{"MOUNT_ATTR_NODEV", mountAttrNodev, unix.MOUNT_ATTR_NODEV},
		{"PR_SET_NO_NEW_PRIVS", prSetNoNewPrivs, unix.PR_SET_NO_NEW_PRIVS},
		{"PR_CAP_AMBIENT", prCapAmbient, unix.PR_CAP_AMBIENT},
		{"PR_CAP_AMBIENT_CLEAR_ALL", prCapAmbientClearAll, unix.PR_CAP_AMBIENT_CLEAR_ALL},
		{"SECCOMP_MODE_FILTER", seccompModeFilter, unix.SECCOMP_MODE_FILTER},
		{"SECCOMP_RET_KILL_PROCESS", seccompRetKillProcess, unix.SECCOMP_RET_KILL_PROCESS},
		{"SECCOMP_RET_ERRNO", seccompRetErrno, unix.SECCOMP_RET_ERRNO},
		{"SECCOMP_RET_ALLOW", seccompRetAllow, unix.SECCOMP_RET_ALLOW},
		{"AUDIT_ARCH_X86_64", auditArchX86_64, unix.AUDIT_ARCH_X86_64},
		{"AUDIT_ARCH_AARCH64", auditArchAarch64, unix.AUDIT_ARCH_AARCH64},
		{"CAP_LAST_CAP", capLastCap, unix.CAP_LAST_CAP},
		{"LINUX_CAPABILITY_VERSION_3", linuxCapabilityVersion3, unix.LINUX_CAPABILITY_VERSION_3},
		{"LANDLOCK_RULE_PATH_BENEATH", landlockRulePathBeneath, unix.LANDLOCK_RULE_PATH_BENEATH},
		{"LANDLOCK_ACCESS_FS_EXECUTE", landlockAccessFSExecute, unix.LANDLOCK_ACCESS_FS_EXECUTE},
		{"LANDLOCK_ACCESS_FS_WRITE_FILE", landlockAccessFSWriteFile, unix.LANDLOCK_ACCESS_FS_WRITE_FILE},
		{"LANDLOCK_ACCESS_FS_READ_FILE", landlockAccessFSReadFile, unix.LANDLOCK_ACCESS_FS_READ_FILE},
		{"LANDLOCK_ACCESS_FS_READ_DIR", landlockAccessFSReadDir, unix.LANDLOCK_ACCESS_FS_READ_DIR},
		{"LANDLOCK_ACCESS_FS_REMOVE_DIR", landlockAccessFSRemoveDir, unix.LANDLOCK_ACCESS_FS_REMOVE_DIR},
		{"LANDLOCK_ACCESS_FS_REMOVE_FILE", landlockAccessFSRemoveFile, unix.LANDLOCK_ACCESS_FS_REMOVE_FILE},
		{"LANDLOCK_ACCESS_FS_MAKE_CHAR", landlockAccessFSMakeChar, unix.LANDLOCK_ACCESS_FS_MAKE_CHAR},
		{"LANDLOCK_ACCESS_FS_MAKE_DIR", landlockAccessFSMakeDir, unix.LANDLOCK_ACCESS_FS_MAKE_DIR},
		{"LANDLOCK_ACCESS_FS_MAKE_REG", landlockAccessFSMakeReg, unix.LANDLOCK_ACCESS_FS_MAKE_REG},
		{"LANDLOCK_ACCESS_FS_MAKE_SOCK", landlockAccessFSMakeSock, unix.LANDLOCK_ACCESS_FS_MAKE_SOCK},
		{"LANDLOCK_ACCESS_FS_MAKE_FIFO", landlockAccessFSMakeFifo, unix.LANDLOCK_ACCESS_FS_MAKE_FIFO},
		{"LANDLOCK_ACCESS_FS_MAKE_BLOCK", landlockAccessFSMakeBlock, unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK},
		{"LANDLOCK_ACCESS_FS_MAKE_SYM", landlockAccessFSMakeSym, unix.LANDLOCK_ACCESS_FS_MAKE_SYM},
		{"LANDLOCK_ACCESS_FS_REFER", landlockAccessFSRefer, unix.LANDLOCK_ACCESS_FS_REFER},
		{"LANDLOCK_ACCESS_FS_TRUNCATE", landlockAccessFSTruncate, unix.LANDLOCK_ACCESS_FS_TRUNCATE},
		{"LANDLOCK_ACCESS_FS_IOCTL_DEV", landlockAccessFSIoctlDev, unix.LANDLOCK_ACCESS_FS_IOCTL_DEV},
		{"LANDLOCK_ACCESS_NET_BIND_TCP", landlockAccessNetBindTCP, unix.LANDLOCK_ACCESS_NET_BIND_TCP},
		{"LANDLOCK_ACCESS_NET_CONNECT_TCP", landlockAccessNetConnectTCP, unix.LANDLOCK_ACCESS_NET_CONNECT_TCP},
		{"LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET", landlockScopeAbstractUnixSocket, unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET},
		{"LANDLOCK_SCOPE_SIGNAL", landlockScopeSignal, unix.LANDLOCK_SCOPE_SIGNAL},
	} {
		require.Equal(t, c.want, c.got, c.name)
	}
	require.Equal(t, unix.AT_FDCWD, atFDCWD, "AT_FDCWD")
	// The structs the kernel reads, field by field as unix lays them out.
	require.Equal(t, unsafe.Sizeof(unix.MountAttr{}), unsafe.Sizeof(mountAttr{}))
	require.Equal(t, unsafe.Offsetof(unix.MountAttr{}.Attr_clr), unsafe.Offsetof(mountAttr{}.attrClr))
	require.Equal(t, unsafe.Sizeof(unix.LandlockPathBeneathAttr{}), unsafe.Sizeof(pathBeneathAttr{}))
	require.Equal(t, unsafe.Offsetof(unix.LandlockPathBeneathAttr{}.Parent_fd), unsafe.Offsetof(pathBeneathAttr{}.parentFD))
	require.Equal(t, unsafe.Sizeof(unix.CapUserHeader{}), unsafe.Sizeof(capHeader{}))
	require.Equal(t, unsafe.Sizeof(unix.CapUserData{}), unsafe.Sizeof(capData{}))
}

func TestUnescapeOctal(t *testing.T) {
	for in, want := range map[string]string{
		`/tmp/a\040b`: "/tmp/a b", `/x\134y`: `/x\y`, `/t\011\012`: "/t\t\n", `/end\04`: `/end\04`, `/no\89x`: `/no\89x`, "": "",
	} {
		if got := unescapeOctal(in); got != want {
			t.Errorf("unescapeOctal(%q) = %q, want %q", in, got, want)
		}
	}
}
