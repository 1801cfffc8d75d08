//go:build !linux

package sandbox

// makePlaceholder makes nothing: only Linux's mount namespace binds a
// placeholder read-only.
func makePlaceholder(path string, dir bool, content string) bool { return false }
