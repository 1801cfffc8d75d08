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
