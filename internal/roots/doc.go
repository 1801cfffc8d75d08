// Package roots decides what the server may touch: it resolves every tool
// path against the session's workspace, scratch and external roots (SPEC §3),
// evaluating symlinks, so that a path outside them is refused before anything
// is opened, and it suggests near names for a path that does not exist.
package roots
