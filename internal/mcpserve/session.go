package mcpserve

import (
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/protocol"

	buildprogress "github.com/toolrpc/toolrpc/internal/progress"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/methods"
)

// rootsInput is the key of the roots/list input request.
const rootsInput = "roots"

// sessionStarter builds the one toolbox session of the connection, once, on
// the roots SPEC §12 names: the --root flags, else the client's roots when
// it offers roots, else the working directory (methods.NewSession's
// default). The client's roots are asked for as a multi-round-trip input
// request (SEP-2322) of the first tool call: MCP 2026-07-28 forbids a
// roots/list request of the server's own, and the go-sdk turns the input
// request into a plain roots/list for clients of older versions.
type sessionStarter struct {
	cfg Config

	mu   sync.Mutex
	sess *methods.Session
	err  error
	done bool
}

func newSessionStarter(cfg Config) *sessionStarter {
	return &sessionStarter{cfg: cfg}
}

// offersRoots reports whether the client declared the roots capability.
func offersRoots(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.RootsV2 != nil
}

// early builds the session at notifications/initialized when no roots need
// asking for.
func (st *sessionStarter) early(ss *mcp.ServerSession) {
	if len(st.cfg.Roots) > 0 || !offersRoots(ss) {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.buildLocked(ss, st.cfg.Roots)
		if st.sess != nil {
			methods.Prewarm(st.sess) // initialize has answered: notifications/initialized follows it
		}
	}
}

// get returns the session for a tool call, or the input-required result
// that asks the client for its roots.
func (st *sessionStarter) get(req *mcp.CallToolRequest) (*methods.Session, *mcp.CallToolResult, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return st.sess, nil, st.err
	}
	roots := st.cfg.Roots
	if len(roots) == 0 && offersRoots(req.Session) {
		lr, ok := req.Params.InputResponses[rootsInput].(*mcp.ListRootsResult)
		if !ok {
			return nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsInput: &mcp.ListRootsParams{}}}, nil
		}
		roots = rootPaths(lr, st.logf)
	}
	st.buildLocked(req.Session, roots)
	return st.sess, nil, st.err
}

// built returns the session if one was built.
func (st *sessionStarter) built() *methods.Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sess
}

// buildLocked builds the session on roots; its builds are logged to ss
// (see buildLog).
func (st *sessionStarter) buildLocked(ss *mcp.ServerSession, dirs []string) {
	if st.done {
		return
	}
	st.done = true
	p := &protocol.InitializeParams{}
	for _, r := range dirs {
		abs, err := filepath.Abs(r)
		if err != nil {
			st.err = err
			return
		}
		p.WorkspaceFolders = append(p.WorkspaceFolders, protocol.WorkspaceFolder{URI: roots.PathURI(abs), Name: filepath.Base(abs)})
	}
	cfg := methods.Config{DataDir: st.cfg.DataDir, SessionID: st.cfg.SessionID, Version: st.cfg.Version, Face: methods.MCP,
		Sandbox:  st.cfg.Sandbox,
		Progress: buildprogress.NewReporter(buildLog{ss})}
	if st.cfg.Logger != nil {
		cfg.Logf = st.cfg.Logger.Printf
	}
	s, err := methods.NewSession(cfg, p)
	if err == nil {
		methods.StartSession(s)
	}
	st.sess, st.err = s, err
}

// logf logs to the server's logger, if any.
func (st *sessionStarter) logf(format string, args ...any) {
	if st.cfg.Logger != nil {
		st.cfg.Logger.Printf(format, args...)
	}
}

// rootPaths returns the paths of the file:// roots; others are logged to
// logf and skipped.
func rootPaths(lr *mcp.ListRootsResult, logf func(format string, args ...any)) []string {
	var paths []string
	for _, r := range lr.Roots {
		p, ok := roots.URIPath(r.URI)
		if !ok {
			logf("mcp: roots/list: %q is not a file:// URI; skipped", r.URI)
			continue
		}
		paths = append(paths, p)
	}
	return paths
}
