//go:build unix

package page

import "syscall"

const oNonblock = syscall.O_NONBLOCK
