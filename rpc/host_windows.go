package rpc

import (
	"time"

	"golang.org/x/sys/windows"

	"github.com/toolrpc/toolrpc/internal/logging"
	"github.com/toolrpc/toolrpc/limits"
)

// watchHost calls gone once the process pid has exited: it waits on a
// SYNCHRONIZE handle of it, else polls its exit code.
func watchHost(pid int, logger logging.Logf, gone func()) {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		// No such process (or no access): treat as gone only when it is absent.
		if err == windows.ERROR_INVALID_PARAMETER {
			gone()
			return
		}
		logger.Printf("open host process %d: %v; not watching it", pid, err)
		return
	}
	defer windows.CloseHandle(h)
	for {
		ev, err := windows.WaitForSingleObject(h, windows.INFINITE)
		if err == nil && ev == windows.WAIT_OBJECT_0 {
			gone()
			return
		}
		time.Sleep(limits.HostPollInterval)
	}
}
