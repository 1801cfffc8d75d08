//go:build linux

package confine

import "syscall"

// setIDLegacy are amd64's calls that set a mode and have an *at twin.
func setIDLegacy(create uint32) []argCheck {
	return []argCheck{
		{nr: syscall.SYS_CHMOD, arg: 1, mask: setID, flagArg: -1},
		{nr: syscall.SYS_OPEN, arg: 2, mask: setID, flagArg: 1, flagMask: create},
		{nr: syscall.SYS_CREAT, arg: 1, mask: setID, flagArg: -1},
		{nr: syscall.SYS_MKNOD, arg: 1, mask: setID, flagArg: -1},
	}
}
