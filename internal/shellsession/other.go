//go:build !unix

package shellsession

import (
	"context"

	"github.com/toolrpc/toolrpc/procgroup"
)

// shellProc is never made here.
type shellProc struct {
	bg     bgCount
	policy any
}

// bgCount is the background byte count, always zero here.
type bgCount struct{}

func (bgCount) take() int64 { return 0 }

// ending is how one command ended; never produced here.
type ending struct {
	rc      int
	exited  bool
	st      procgroup.Status
	aborted bool
	why     string
}

// startShell fails: without a bash with the error tools/bash gives, with
// one with ErrUnsupported.
func startShell(_ context.Context, dir string, _ []string, _ Wrap, _ Fork, _ any, _ func(string, ...any)) (*shellProc, error) {
	g, err := procgroup.Start(procgroup.Spec{Command: "exit 0", Dir: dir})
	if err != nil {
		return nil, err
	}
	_, _ = g.Wait()
	return nil, ErrUnsupported
}

func (p *shellProc) run(context.Context, *command) (ending, error) { return ending{}, ErrUnsupported }
func (p *shellProc) end()                                          {}
func (p *shellProc) gone() bool                                    { return true }
func (p *shellProc) prepareNext()                                  {}
