package limits

import "time"

// Editor documents (SPEC §15): what the server holds of the buffers an LSP
// client syncs, and how long an edit sent to the editor may take.
const (
	// DocumentMaxBytes is the largest document the server holds; a larger
	// one is not held and the tools use its file on disk.
	DocumentMaxBytes = 64 * MiB
	// DocumentsMaxBytes bounds the open documents of a session together; a
	// document that would pass it is not held.
	DocumentsMaxBytes = 256 * MiB
	// DocumentsMaxOpen bounds how many documents a session holds.
	DocumentsMaxOpen = 4096
	// EditorApplyTimeout is how long an edit sent to the editor waits for
	// the editor's reply and the didChange that carries it before it fails
	// EDIT_NOT_APPLIED.
	EditorApplyTimeout = 10 * time.Second
	// UnsavedNamesInNotice is how many unsaved buffers a notice names; it
	// counts the rest.
	UnsavedNamesInNotice = 5
)
