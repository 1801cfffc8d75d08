package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/toolrpc/toolrpc/internal/sandbox"
	"github.com/toolrpc/toolrpc/internal/shell"
	"github.com/toolrpc/toolrpc/internal/shellsession"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// sessionName is wire.SessionNamePattern compiled.
var sessionName = regexp.MustCompile(wire.SessionNamePattern)

// bashSessionDecode checks tools/bash's session and restart (SPEC §6.7).
func bashSessionDecode(r *bashRun, p *wire.BashParams) error {
	if p.Session == nil {
		if p.Restart {
			return rpc.Errorf(rpc.InvalidArgument, "bash: restart needs a session")
		}
		return nil
	}
	if !sessionName.MatchString(*p.Session) {
		return rpc.Errorf(rpc.InvalidArgument, "bash: session %q must match %s", *p.Session, wire.SessionNamePattern)
	}
	r.session, r.restart = *p.Session, p.Restart
	return nil
}

// bashSessionRun runs r's command in its session; the errors are shell.Run's
// kinds, so bashCall maps them alike.
func bashSessionRun(ctx context.Context, s *Session, r *bashRun, spec shell.Spec, pol *sandbox.Resolved) (*wire.BashResult, error) {
	if s.shells == nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "bash: this server keeps no shell sessions")
	}
	key, err := policyKey(pol)
	if err != nil {
		return nil, fmt.Errorf("bash: sandbox state: %w", err)
	}
	res, err := s.shells.Run(ctx, shellsession.Request{Name: r.session, Restart: r.restart, Spec: spec, CdGiven: r.cwd,
		Policy: key, MakeWrap: pol.Wrap})
	var many *shellsession.TooManyError
	var name *shellsession.NameError
	switch {
	case errors.As(err, &many):
		return nil, rpc.Errorf(rpc.InvalidArgument, "bash: %v", many)
	case errors.As(err, &name):
		return nil, rpc.Errorf(rpc.InvalidArgument, "bash: %v", name)
	case errors.Is(err, shellsession.ErrUnsupported):
		return nil, rpc.Errorf(rpc.InvalidArgument, "bash: %v", err)
	}
	return res, err
}

// lastPolicy is the policy policyKey was last asked for, and its key: a
// policy is replaced whole, never changed, so its key is made once, not
// once a command.
var lastPolicy struct {
	sync.Mutex
	pol *sandbox.Resolved
	key string
}

// policyKey identifies pol for shellsession.Request.Policy: the state
// initialize and sandbox/update report, equal for equal policies.
func policyKey(pol *sandbox.Resolved) (string, error) {
	lastPolicy.Lock()
	defer lastPolicy.Unlock()
	if lastPolicy.pol == pol && pol != nil {
		return lastPolicy.key, nil
	}
	key, err := json.Marshal(pol.State())
	if err != nil {
		return "", err
	}
	lastPolicy.pol, lastPolicy.key = pol, string(key)
	return lastPolicy.key, nil
}
