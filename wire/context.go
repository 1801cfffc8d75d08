package wire

import "encoding/json"

// CompactParams are the params of context/compact (SPEC §9). Messages is the
// JSON of the transcript, kept raw: checkpoint parses it and echoes every
// member it does not know.
type CompactParams struct {
	CheckpointID string          `json:"checkpointId"`
	Messages     json.RawMessage `json:"messages"`
	Budgets      *CompactBudgets `json:"budgets,omitempty"`
}

// CompactBudgets are context/compact's token budgets; nil takes the default.
type CompactBudgets struct {
	UserTokens  *int `json:"userTokens,omitempty"`
	BatchTokens *int `json:"batchTokens,omitempty"`
}

// LoadParams are the params of context/load (SPEC §9).
type LoadParams struct {
	CheckpointID string `json:"checkpointId"`
}

// CheckpointResult is the result of context/compact and of context/load
// (SPEC §9): the rebuilt transcript saved as CheckpointID. context/load
// answers the bytes context/compact answered.
type CheckpointResult struct {
	CheckpointID string `json:"checkpointId"`
	// Messages is the rebuilt transcript: the input's messages in their
	// order, each with every member it had, members sorted by name.
	Messages json.RawMessage `json:"messages"`
	Stats    CompactStats    `json:"stats"`
}

// CompactStats describes one compaction.
type CompactStats struct {
	// InputTokens is the token estimate of every input message's content.
	InputTokens int `json:"inputTokens"`
	// OutputTokens is the token estimate of every output message's content.
	OutputTokens int `json:"outputTokens"`
	// Shrunk lists, ascending, the indexes of the messages that were cut.
	Shrunk []int `json:"shrunk"`
}
