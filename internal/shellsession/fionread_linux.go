package shellsession

import "golang.org/x/sys/unix"

// fionread is the ioctl that counts a pipe's unread bytes (FIONREAD; Linux spells it TIOCINQ).
const fionread = unix.TIOCINQ
