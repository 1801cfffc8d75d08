//go:build !linux || toolrpc_portable

package filetable

// fsUnreliable returns "": without inotify there is no table to refuse.
func fsUnreliable(string) string { return "" }

// mountsBelow reports nothing known: fsUnreliable answers "" anyway.
func mountsBelow(string) (map[string]bool, bool) { return nil, false }
