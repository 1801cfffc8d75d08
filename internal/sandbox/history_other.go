//go:build !linux

package sandbox

// keepHistory keeps nothing: only Linux's mount namespace keeps the copy
// read-only to commands.
func keepHistory(gd string) bool { return false }
