//go:build toolrpc_portable

package rpc

import (
	"bytes"
	"os"
	"strconv"
)

// zombie reports whether pid has exited but is not reaped yet (state Z in
// /proc/<pid>/stat, after the command name's closing parenthesis).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
