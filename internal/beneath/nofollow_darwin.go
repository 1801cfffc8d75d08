package beneath

import "golang.org/x/sys/unix"

// noFollowAny refuses a symlink in any component (macOS 11+).
const noFollowAny = unix.O_NOFOLLOW_ANY
