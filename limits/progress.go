package limits

import "time"

// Work-done progress of builds (SPEC §12).
const (
	// ProgressReportInterval is the least time between two progress reports
	// of one build (a file table's walk, a content index's build): at most
	// two reports a second, whatever the build's speed.
	ProgressReportInterval = 500 * time.Millisecond
)
