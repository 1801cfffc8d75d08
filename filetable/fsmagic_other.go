//go:build !linux || toolrpc_portable

package filetable

// fsUnreliable returns "": without inotify there is no table to refuse.
func fsUnreliable(string) string { return "" }
