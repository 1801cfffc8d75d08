//go:build !linux || toolrpc_portable

package cli

import "os"

// hostStdout returns os.Stdout. Only Linux can reopen the stdout pipe as a
// new open file description (/proc/self/fd/1; macOS's /dev/fd/1 is a dup of
// the same one, so making it non-blocking would change the host's end too);
// elsewhere an ending session's last writes are not bounded by a deadline,
// and stdin EOF or host death still ends the process.
func hostStdout() *os.File { return os.Stdout }
