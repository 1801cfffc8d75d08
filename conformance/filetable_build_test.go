//go:build linux && !toolrpc_portable

package conformance

// fileTableBuild tells whether the server under test (this binary) keeps
// resident file tables: Linux builds do; toolrpc_portable builds, like
// macOS and Windows, walk on every call and persist no table (SPEC §12).
const fileTableBuild = true
