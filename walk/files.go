package walk

// Files is a listing read by index, the way a search consumes a walk: a
// walk's []File (FileList), or a resident file table's listing that builds
// each File only when it is read. At may be called from several goroutines
// at once.
//
// The other methods serve a content index that rules files out by path and
// identity: a listing that builds Files lazily answers them without building
// the File.
type Files interface {
	// Len returns the number of files.
	Len() int
	// At returns the i-th file, 0 ≤ i < Len().
	At(i int) File
	// AppendAbs appends the i-th file's absolute path to dst.
	AppendAbs(dst []byte, i int) []byte
	// Identity returns the i-th file's size and modification time (ns).
	Identity(i int) (size, mtime int64)
	// SnapshotKey identifies an immutable listing: two listings with equal
	// keys (==) list the same files, paths, sizes and mtimes in the same
	// order. It is nil for a listing that is not such a snapshot.
	SnapshotKey() any
}

// FileList is a []File as Files.
type FileList []File

// Len returns len(l).
func (l FileList) Len() int { return len(l) }

// At returns l[i].
func (l FileList) At(i int) File { return l[i] }

// AppendAbs appends l[i].Abs to dst.
func (l FileList) AppendAbs(dst []byte, i int) []byte { return append(dst, l[i].Abs...) }

// Identity returns l[i]'s size and modification time.
func (l FileList) Identity(i int) (size, mtime int64) { return l[i].Size, l[i].ModTime }

// SnapshotKey returns nil: a FileList is not a snapshot.
func (l FileList) SnapshotKey() any { return nil }
