//go:build linux && !amd64

package confine

// setIDLegacy: other architectures have only the *at calls.
func setIDLegacy(uint32) []argCheck { return nil }
