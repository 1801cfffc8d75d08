package limits

import "time"

// Persisted resident file table (issue 27). None of these changes an answer:
// a persisted table is revalidated against the file system before it answers.
const (
	// FileTableSaveDelay is how long after its build or its last change a
	// file table waits before it writes itself beside the content index
	// (it also writes itself when its session closes).
	FileTableSaveDelay = 5 * time.Second
	// FileTableRacyWindow is how close to the moment a table was saved a
	// directory's or an ignore file's change time may be for a new server
	// to distrust it (it lists that directory again): a change within one
	// timestamp tick leaves the time unchanged.
	FileTableRacyWindow = 2 * time.Second
	// FileTableMaxStoreBytes is the largest persisted table a server reads;
	// a larger file is ignored and the tree walked.
	FileTableMaxStoreBytes = 512 * MiB
)
