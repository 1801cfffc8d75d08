package methods

import (
	"github.com/toolrpc/toolrpc/walk"
)

// Prewarm starts, in the background and at idle priority, the load of
// every workspace root's stored file table an earlier server left (SPEC
// §12): a host's first grep, which comes after its model's first
// response, then finds the table live and the root's content index mapped
// with the listing classified. It never waits, and a root with nothing
// stored starts nothing (its first walk stays the first call's). Both
// faces run it once initialize has answered; CloseSession ends a load
// still running.
func Prewarm(s *Session) {
	for _, root := range s.roots.Workspace() {
		s.files.Prewarm(root, func(files walk.Files) { s.index.Warm(root, files) })
	}
}
