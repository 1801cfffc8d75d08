package walk

// Files is a listing read by index, the way a search consumes a walk: a
// walk's []File (FileList), or a resident file table's listing that builds
// each File only when it is read. At may be called from several goroutines
// at once.
type Files interface {
	// Len returns the number of files.
	Len() int
	// At returns the i-th file, 0 ≤ i < Len().
	At(i int) File
}

// FileList is a []File as Files.
type FileList []File

// Len returns len(l).
func (l FileList) Len() int { return len(l) }

// At returns l[i].
func (l FileList) At(i int) File { return l[i] }
