package shell

import (
	"fmt"
	"strconv"
	"time"
)

// TimeoutError reports that a command was still running when its timeout
// passed, so its whole process tree was killed. Run returns it together with
// the partial Result.
type TimeoutError struct {
	// After is the timeout that passed.
	After time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("timed out after %s s; the process tree was killed",
		strconv.FormatFloat(e.After.Seconds(), 'f', -1, 64))
}

// CancelledError reports that Run's ctx ended while the command ran, so its
// whole process tree was killed. Run returns it together with the partial
// Result. It unwraps to ctx's error.
type CancelledError struct {
	// Cause is ctx's error (context.Canceled or context.DeadlineExceeded).
	Cause error
}

func (e *CancelledError) Error() string {
	return "cancelled; the process tree was killed: " + e.Cause.Error()
}

// Unwrap returns Cause.
func (e *CancelledError) Unwrap() error { return e.Cause }
