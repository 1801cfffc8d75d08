package shell

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/toolrpc/toolrpc/procgroup"
)

// ErrDirGone reports that a command's working directory no longer exists when
// it is started (exec reports that as a missing shell).
var ErrDirGone = errors.New("working directory no longer exists")

// Start starts spec as a procgroup tree with the Environ policy added to
// spec.Env (with spec.GitPrompts, GIT_TERMINAL_PROMPT=1 after it). It is the
// one place a command of any tool is spawned. A ctx already done fails the start (procgroup.StartContext). A
// working directory that vanished yields an error wrapping ErrDirGone. The
// caller must Wait on the group.
func Start(ctx context.Context, spec procgroup.Spec) (*procgroup.Group, error) {
	spec.Env = Environ(spec.Env)
	if spec.GitPrompts {
		spec.Env = append(spec.Env, "GIT_TERMINAL_PROMPT=1")
	}
	g, err := procgroup.StartContext(ctx, spec)
	if err == nil {
		return g, nil
	}
	if _, serr := os.Stat(spec.Dir); errors.Is(serr, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrDirGone, spec.Dir)
	}
	return nil, err
}
