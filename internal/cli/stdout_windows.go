package cli

import "os"

// hostStdout returns os.Stdout: Windows anonymous pipes take no deadlines,
// so an ending session's last writes are not bounded; stdin EOF and host
// death still end the process.
func hostStdout() *os.File { return os.Stdout }
