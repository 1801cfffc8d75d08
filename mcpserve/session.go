package mcpserve

import (
	"context"
	"log"
	"net/url"
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/methods"
)

// rootsWait is limits.MCPRootsWait; tests shorten it.
var rootsWait = limits.MCPRootsWait

// sessionStarter builds the one toolbox session of the connection, once, on
// the roots SPEC §12 names: the --root flags, else the client's roots/list
// when it offers roots, else the working directory (methods.NewSession's
// default). It starts at notifications/initialized or at the first tool
// call, whichever comes first.
type sessionStarter struct {
	cfg Config

	once sync.Once
	done chan struct{}
	sess *methods.Session
	err  error
}

func newSessionStarter(cfg Config) *sessionStarter {
	return &sessionStarter{cfg: cfg, done: make(chan struct{})}
}

// start begins building the session, if it has not begun.
func (st *sessionStarter) start(ss *mcp.ServerSession) {
	st.once.Do(func() {
		go func() {
			defer close(st.done)
			st.sess, st.err = st.build(ss)
		}()
	})
}

// get returns the session, waiting for it to be built.
func (st *sessionStarter) get(ctx context.Context, ss *mcp.ServerSession) (*methods.Session, error) {
	st.start(ss)
	select {
	case <-st.done:
		return st.sess, st.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// built returns the session if one was built.
func (st *sessionStarter) built() *methods.Session {
	select {
	case <-st.done:
		return st.sess
	default:
		return nil
	}
}

func (st *sessionStarter) build(ss *mcp.ServerSession) (*methods.Session, error) {
	roots := st.cfg.Roots
	if len(roots) == 0 {
		roots = clientRoots(ss)
	}
	p := &protocol.InitializeParams{}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, err
		}
		p.WorkspaceFolders = append(p.WorkspaceFolders, protocol.WorkspaceFolder{URI: (&url.URL{Scheme: "file", Path: abs}).String(), Name: filepath.Base(abs)})
	}
	s, err := methods.NewSession(methods.Config{DataDir: st.cfg.DataDir, SessionID: st.cfg.SessionID, Version: st.cfg.Version}, p)
	if err != nil {
		return nil, err
	}
	if err := methods.StartSession(s); err != nil {
		return nil, err
	}
	return s, nil
}

// clientRoots asks the client for its roots when it offers them and returns
// the file:// ones as paths; nil when it offers none, fails or does not
// answer within rootsWait.
func clientRoots(ss *mcp.ServerSession) []string {
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), rootsWait)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		log.Printf("mcp: roots/list: %v; using the working directory", err)
		return nil
	}
	var roots []string
	for _, r := range res.Roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			log.Printf("mcp: roots/list: %q is not a file:// URI; skipped", r.URI)
			continue
		}
		roots = append(roots, u.Path)
	}
	return roots
}
