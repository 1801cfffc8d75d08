package limits

// Checkpoint truncation (SPEC §9). The budgets themselves are
// CheckpointUserTokens and CheckpointBatchTokens in limits.go.
const (
	// CheckpointMarker is the line that joins the head and the tail of a
	// message cut by context/compact. It differs from the §6.2 markers so a
	// reader can tell where text was shortened.
	CheckpointMarker = "[checkpoint truncated: this message crossed the retained context budget]"

	// CheckpointHeadPercent is the share of a cut message's payload bytes
	// (its byte budget minus the marker line) given to the head; the tail
	// gets the rest.
	CheckpointHeadPercent = 75

	// CheckpointMinBudgetTokens is the smallest budget a context/compact
	// request may set with budgets.userTokens or budgets.batchTokens.
	CheckpointMinBudgetTokens = 256

	// CheckpointMaxBudgetTokens is the largest budget a context/compact
	// request may set: a frame cannot carry a larger message anyway.
	CheckpointMaxBudgetTokens = MaxFrameBytes / BytesPerToken

	// CheckpointIDMaxChars is the longest checkpointId accepted.
	CheckpointIDMaxChars = 64
)

// CheckpointMarkerLine is the text inserted between head and tail of a cut
// message: the marker on a line of its own. Its bytes count against the
// message's budget.
const CheckpointMarkerLine = "\n" + CheckpointMarker + "\n"
