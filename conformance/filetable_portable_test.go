//go:build !linux || toolrpc_portable

package conformance

// fileTableBuild: see filetable_build_test.go.
const fileTableBuild = false
