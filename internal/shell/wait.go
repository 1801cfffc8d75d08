package shell

import (
	"context"
	"time"

	"github.com/toolrpc/toolrpc/procgroup"
)

// ending is how a wait ended.
type ending int

const (
	exited    ending = iota // the shell exited by itself
	timedOut                // the timeout passed; the tree was killed
	cancelled               // ctx ended; the tree was killed
)

// err is the error Run reports for the ending: nil when the shell exited.
func (e ending) err(ctx context.Context, timeout time.Duration) error {
	switch e {
	case timedOut:
		return &TimeoutError{After: timeout}
	case cancelled:
		return &CancelledError{Cause: ctx.Err()}
	}
	return nil
}

// waited is what Group.Wait returned.
type waited struct {
	st  procgroup.Status
	err error
}

// waitFor waits for g to exit. When ctx ends or timeout (0: none) passes
// first, it kills g's tree and then waits for it. The error is Wait's.
func waitFor(ctx context.Context, g *procgroup.Group, timeout time.Duration) (procgroup.Status, ending, error) {
	done := make(chan waited, 1)
	go func() {
		st, err := g.Wait()
		done <- waited{st, err}
	}()
	var expired <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	end := exited
	select {
	case w := <-done:
		return w.st, end, w.err
	case <-ctx.Done():
		end = cancelled
	case <-expired:
		end = timedOut
	}
	g.Kill()
	w := <-done
	return w.st, end, w.err
}
