package lineedit

// Refusal says why an edit or write was refused; a caller maps it to its
// wire error.
type Refusal int

// The refusals of Edit and Write.
const (
	NotFound    Refusal = iota + 1 // the file does not exist
	IsDirectory                    // the path is a directory
	NotRegular                     // a FIFO, device or socket
	BadRange                       // an op reaches past the last line
	Stale                          // the file's tag is not the one given, or it changed during the edit
	NotVisible                     // an op touches lines not shown whole in this version
	BadEncoding                    // tools/write names an unknown encoding
	Unencodable                    // new text the file's encoding cannot represent, or a file that cannot be rewritten byte-exact
)

// Error is a refused edit or write; nothing was written.
type Error struct {
	// Refusal says why.
	Refusal Refusal
	// Msg is the whole message, naming the file.
	Msg string
	// Tag is the file's current tag (Stale).
	Tag string
	// Lines are the first lines not shown whole, ascending (NotVisible);
	// More counts the others.
	Lines []int
	More  int
}

// Error implements error.
func (e *Error) Error() string { return e.Msg }
