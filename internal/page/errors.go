package page

// Refusal says why a read was refused; a caller maps it to its wire error.
type Refusal int

// The refusals of Read.
const (
	NotFound         Refusal = iota + 1 // the file does not exist
	IsDirectory                         // the path is a directory
	NotRegular                          // a FIFO, device or socket (FileType says which)
	Binary                              // binary by name or content (Reason says why)
	PermissionDenied                    // the file may not be opened
	Changing                            // the file kept changing while it was read
)

// Error is a refused read.
type Error struct {
	// Refusal says why.
	Refusal Refusal
	// Msg is the whole message, naming the file.
	Msg string
	// FileType names the kind of file (NotRegular).
	FileType string
	// Reason says why the file is binary, and Size is its size (Binary).
	Reason string
	Size   int64
}

// Error implements error.
func (e *Error) Error() string { return e.Msg }
