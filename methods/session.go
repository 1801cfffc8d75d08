package methods

import (
	"context"
	"errors"
	"log"
	"path/filepath"
	"reflect"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/internal/checkpoint"
	"github.com/toolrpc/toolrpc/internal/contentindex"
	"github.com/toolrpc/toolrpc/internal/documents"
	"github.com/toolrpc/toolrpc/internal/editor"
	"github.com/toolrpc/toolrpc/internal/filetable"
	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/internal/lineindex"
	"github.com/toolrpc/toolrpc/internal/logging"
	"github.com/toolrpc/toolrpc/internal/process"
	"github.com/toolrpc/toolrpc/internal/progress"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/internal/sandbox"
	"github.com/toolrpc/toolrpc/internal/search"
	"github.com/toolrpc/toolrpc/internal/sessionconf"
	"github.com/toolrpc/toolrpc/internal/shellsession"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/spill"
	"github.com/toolrpc/toolrpc/wire"
)

// Config holds the defaults given on the command line; initialize params
// override them.
type Config struct {
	// Root is the workspace root used when initialize names none ("" = cwd).
	Root string
	// DataDir is the data directory used when initialize names none ("" =
	// $XDG_STATE_HOME/toolrpc, else ~/.local/state/toolrpc).
	DataDir string
	// SessionID is the session id used when initialize names none ("" = random).
	SessionID string
	// Version is reported in serverInfo.
	Version string
	// Face is the face the session's error messages are written for (the
	// zero value is LSP).
	Face Face
	// Logf is the log every engine of the session writes to (nil: the
	// standard logger).
	Logf logging.Logf
	// Progress, when set, shows the session's file table walks and content
	// index builds to the client (SPEC §12); CloseSession closes it.
	Progress *progress.Reporter
	// Sandbox is the command line's sandbox policy (SPEC §14);
	// initializationOptions.sandbox replaces it.
	Sandbox wire.SandboxPolicy
	// Toolset is the command line's toolset (SPEC §16; nil: toolrpc's
	// own); initializationOptions.toolset replaces it.
	Toolset Toolset
}

// Session is the state one initialize creates: roots, scratch dir, source set,
// and the caches the tools share.
type Session struct {
	// ID is the session id.
	ID string
	// DataDir is the data directory holding scratch/ and checkpoints/.
	DataDir string
	// roots resolves and classifies every path argument.
	roots *roots.Roots
	// Scratch is the session's scratch directory (created at the first spill).
	Scratch *spill.Dir
	// sources is the edit source set.
	sources *sourceset.Set
	// lines caches the line indexes of the files tools/read pages.
	lines *lineindex.Cache
	// locks serialises tools/edit and tools/write on one file.
	locks *lineedit.Locks
	// index holds the content indexes grep narrows its files with, one per
	// workspace root; nil searches without (tests).
	index *contentindex.Set
	// files keeps the resident file tables of the workspace roots that grep
	// and glob list from; Shutdown closes it.
	files *filetable.Set
	// Face is the face the session's error messages are written for.
	Face Face
	// Logf is the session's log.
	Logf logging.Logf
	// processes are the session's processes (SPEC §13); CloseSession kills them.
	processes *process.Table
	// shells are the named shell sessions of tools/bash (SPEC §6.7);
	// CloseSession ends them.
	shells *shellsession.Manager
	// progress shows the builds of Files and Index to the client (nil:
	// nobody to show them to).
	progress *progress.Reporter
	// Toolset is the tool families tools/list offers (SPEC §16).
	Toolset Toolset
	// resume keeps where grep pages stopped, so the next page starts there
	// (nil: every page searches from the first file).
	resume *search.Resumes
	// docs are the documents the editor has open (SPEC §15); nil on the
	// MCP face.
	docs *documents.Store
	// editor sends edits of open documents to the editor; nil when they go
	// to disk (no client support, edits: "disk", the MCP face).
	editor *editor.Editor
	// editAll: edits "editor" sends edits of files the editor does not
	// hold through it too (SPEC §15).
	editAll editAll

	sandboxMu sync.Mutex
	sandbox   *sandbox.Resolved // replaced whole by SetSandbox

	checkpointsOnce sync.Once
	checkpoints     *checkpoint.Store // opened at the first context/* call
	checkpointsErr  error
}

// policy returns the session's sandbox policy now in force. A call takes
// it once, at its start, and keeps it to its end.
func (s *Session) policy() *sandbox.Resolved {
	s.sandboxMu.Lock()
	defer s.sandboxMu.Unlock()
	if s.sandbox == nil {
		return sandbox.Off
	}
	return s.sandbox
}

// setPolicy replaces the session's policy from the next call on and
// returns it (sandbox/update, SPEC §14).
func (s *Session) setPolicy(p wire.SandboxPolicy) (*sandbox.Resolved, error) {
	env := sandbox.HostEnv(s.roots.Workspace(), s.Scratch.Path())
	env.ReadOnlyRoots = s.roots.External()
	pol, err := sandbox.Resolve(p, env)
	if err != nil {
		return nil, err
	}
	s.sandboxMu.Lock()
	old := s.sandbox
	s.sandbox = pol
	s.sandboxMu.Unlock()
	if old != nil && s.shells != nil && !reflect.DeepEqual(old.State(), pol.State()) {
		s.shells.EndAll(shellsession.PolicyChanged)
	}
	old.Close() // its thread ends once the commands it forked are reaped
	return pol, nil
}

// checkpointStore returns the session's checkpoint store, opening it the first
// time; a store that cannot be opened stays an error for the session.
func (s *Session) checkpointStore() (*checkpoint.Store, error) {
	s.checkpointsOnce.Do(func() { s.checkpoints, s.checkpointsErr = checkpoint.NewStore(s.DataDir, s.ID) })
	return s.checkpoints, s.checkpointsErr
}

// NewSession builds the session an initialize request describes. The
// session owns cfg.Progress: CloseSession closes it, and so does a failed
// NewSession.
func NewSession(cfg Config, p *protocol.InitializeParams) (_ *Session, err error) {
	defer func() {
		if err != nil {
			cfg.Progress.Close()
		}
	}()
	c, err := sessionconf.Resolve(sessionconf.Defaults{Root: cfg.Root, DataDir: cfg.DataDir, SessionID: cfg.SessionID}, p)
	var bad *sessionconf.Error
	if errors.As(err, &bad) {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s", bad)
	} else if err != nil {
		return nil, err
	}
	id, dataDir := c.SessionID, c.DataDir
	scratch := spill.New(dataDir, id)
	r, err := roots.NewRoots(c.Workspace, scratch.Path(), c.External)
	if err != nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%w", err)
	}
	logf := cfg.Logf
	if logf == nil {
		logf = log.Printf
	}
	policy := cfg.Sandbox
	if c.Sandbox != nil {
		policy = *c.Sandbox
	}
	env := sandbox.HostEnv(r.Workspace(), scratch.Path())
	env.ReadOnlyRoots = r.External()
	pol, err := sandbox.Resolve(policy, env)
	if err != nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "initializationOptions.%v", err)
	}
	ts := cfg.Toolset
	if c.Toolset != nil {
		if ts, err = ToolsetOf(c.Toolset); err != nil {
			return nil, rpc.Errorf(rpc.InvalidArgument, "initializationOptions.%v", err)
		}
	}
	if ts == nil {
		ts = DefaultToolset
	}
	files := filetable.NewStoredSet(r.Workspace(), fileTableStore(dataDir), logf)
	files.ReportTo(cfg.Progress)
	// A fresh tree's first grep or glob walks as ripgrep would; grep and
	// glob build the table once they have answered (BuildDeferred).
	files.DeferBuilds()
	return &Session{sandbox: pol,
		ID: id, DataDir: dataDir, roots: r, Scratch: scratch, sources: sourceset.New(),
		lines: lineindex.NewCache(limits.LineIndexCacheBytes), locks: &lineedit.Locks{},
		index: contentindex.NewSet(contentindex.Options{DataDir: dataDir, CPUPercent: indexCPUPercent, Logf: logf, Progress: cfg.Progress}),
		files: files, Logf: logf, Face: cfg.Face, Toolset: ts, progress: cfg.Progress, resume: &search.Resumes{},
		processes: process.NewTable(filepath.Join(scratch.Path(), "process")),
		shells:    shellsession.NewManager(logf),
	}, nil
}

// fileTableStore returns where a root's file table persists: beside its
// content index, so a new server on a known tree revalidates the table
// instead of walking the tree.
func fileTableStore(dataDir string) func(root string) string {
	return func(root string) string { return filepath.Join(contentindex.Dir(dataDir, root), "filetable") }
}

// Toolbox serves the registered methods; it implements rpc.Service.
type Toolbox struct {
	cfg Config

	mu      sync.Mutex
	session *Session
}

// NewToolbox returns a Toolbox with the command line's defaults.
func NewToolbox(cfg Config) *Toolbox { return &Toolbox{cfg: cfg} }

// Initialize builds the session and returns the initialize result. A
// Toolbox has one session: a second Initialize is refused, as the server
// refuses a second initialize before it gets here.
func (t *Toolbox) Initialize(ctx context.Context, p *protocol.InitializeParams) (any, error) {
	t.mu.Lock()
	again := t.session != nil
	t.mu.Unlock()
	if again {
		return nil, &rpc.Error{Code: rpc.CodeInvalidRequest, Message: "initialize may only be sent once"}
	}
	cfg := t.cfg
	cfg.Progress = lspProgress(ctx, p)
	s, err := NewSession(cfg, p)
	if err != nil {
		return nil, err
	}
	docSync, posEnc, err := startDocuments(ctx, s)
	if err != nil {
		CloseSession(s)
		return nil, err
	}
	startScratch(s)
	t.mu.Lock()
	t.session = s
	t.mu.Unlock()
	return &wire.InitializeResult{
		Capabilities: wire.Capabilities{Tools: wire.ToolsCapability{Methods: toolNames()},
			TextDocumentSync: docSync, PositionEncoding: posEnc},
		ServerInfo: wire.ServerInfo{Name: "toolrpc", Version: t.cfg.Version},
		Limits:     limits.Table(),
		Roots:      s.roots.Workspace(),
		ScratchDir: s.Scratch.Path(),
		Sandbox:    s.policy().State(),
	}, nil
}

// Started starts the session's background loads once the initialize
// result is written (rpc.Starter): see Prewarm.
func (t *Toolbox) Started() {
	t.mu.Lock()
	s := t.session
	t.mu.Unlock()
	if s != nil {
		Prewarm(s)
	}
}

// lspProgress returns the reporter of builds for an LSP client that
// declared capabilities.window.workDoneProgress, else nil (SPEC §12).
func lspProgress(ctx context.Context, p *protocol.InitializeParams) *progress.Reporter {
	peer := rpc.PeerFrom(ctx)
	if peer == nil || p.Capabilities.Window == nil || !p.Capabilities.Window.WorkDoneProgress {
		return nil
	}
	return progress.NewReporter(progress.NewLSP(peer))
}

// startScratch keeps a restarted session's scratch dir and sweeps the
// scratch dirs of sessions no live server holds (SPEC §7). Neither failure
// stops the session from starting.
func startScratch(s *Session) {
	if err := s.Scratch.Adopt(); err != nil {
		s.Logf("initialize: %v", err)
	}
	if _, err := s.Scratch.Sweep(); err != nil {
		s.Logf("initialize: %v", err)
	}
}

// Handler returns the handler of method, or nil when no such method exists.
func (t *Toolbox) Handler(method string) rpc.Handler {
	m, ok := Lookup(method)
	if !ok {
		return nil
	}
	return func(ctx context.Context, call *rpc.Call) (any, error) {
		t.mu.Lock()
		s := t.session
		t.mu.Unlock()
		return m.Call(ctx, s, call)
	}
}

// Shutdown releases the session: its scratch dir is removed.
func (t *Toolbox) Shutdown() {
	t.mu.Lock()
	s := t.session
	t.session = nil
	t.mu.Unlock()
	if s == nil {
		return
	}
	CloseSession(s)
}

// indexCPUPercent is the content index builder's share of a core (0: the
// limits default); tests raise it.
var indexCPUPercent = 0
