package wire

// The data of the SPEC §10 errors that name more than their code. rpc merges
// the code member in; each type is what one kind of failure adds.

// NotFoundData is the data of tools/read's NOT_FOUND: similar names in the
// same directory (null when there are none).
type NotFoundData struct {
	Path        string   `json:"path"`
	Suggestions []string `json:"suggestions"`
}

// NotRegularData is the data of tools/read's INVALID_ARGUMENT for a FIFO,
// device or socket: FileType says which.
type NotRegularData struct {
	Path     string `json:"path"`
	FileType string `json:"fileType"`
}

// StaleTagData is the data of STALE_TAG: the file's current tag.
type StaleTagData struct {
	Tag string `json:"tag"`
}

// LineNotVisibleData is the data of LINE_NOT_VISIBLE: the first lines not
// shown whole, ascending, and how many others there are (absent when none).
type LineNotVisibleData struct {
	Lines []int `json:"lines"`
	More  int   `json:"more,omitempty"`
}

// CheckpointData is the data of context/compact's refusal to rewrite a
// checkpoint and context/load's NOT_FOUND.
type CheckpointData struct {
	CheckpointID string `json:"checkpointId"`
}

// TranscriptData is the data of context/compact's INVALID_ARGUMENT for a
// transcript message: Index is that message's.
type TranscriptData struct {
	Index int `json:"index"`
}

// EditorData is the data of a STALE_TAG or EDIT_NOT_APPLIED of an edit sent
// to the editor (SPEC §15): the buffer's tag now, and the editor's reason.
type EditorData struct {
	Tag           string `json:"tag,omitempty"`
	FailureReason string `json:"failureReason,omitempty"`
}
