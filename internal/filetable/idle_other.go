//go:build !linux || toolrpc_portable

package filetable

// idleThread does nothing here: no table is ever loaded (see hasWatcher).
func idleThread() int { return 0 }

// unidleThread does nothing here, and reports false.
func unidleThread(int) bool { return false }
