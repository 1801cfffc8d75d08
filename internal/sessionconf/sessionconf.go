// Package sessionconf resolves where one session lives from an initialize
// request and the command line's defaults: its id, its data directory and
// its roots. Every refusal of the request's params is an *Error, so a caller
// can answer it as a bad request.
package sessionconf

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/wire"
	"go.lsp.dev/protocol"
)

// Error refuses the request's params; its text names the param.
type Error struct {
	msg string
}

func (e *Error) Error() string { return e.msg }

func invalid(format string, args ...any) error { return &Error{msg: fmt.Sprintf(format, args...)} }

// Defaults are the command line's values, which the request overrides.
type Defaults struct {
	// Root is the workspace root when the request names none ("" = cwd).
	Root string
	// DataDir is the data directory when the request names none ("" =
	// $XDG_STATE_HOME/toolrpc, else ~/.local/state/toolrpc).
	DataDir string
	// SessionID is the session id when the request names none ("" = random).
	SessionID string
}

// Conf is one session's resolved place.
type Conf struct {
	// SessionID matches [A-Za-z0-9._-]{1,64} and is neither "." nor "..".
	SessionID string
	// DataDir is absolute.
	DataDir string
	// Workspace are the workspace roots as named (workspaceFolders, else
	// rootUri, else Defaults.Root, else the working directory).
	Workspace []string
	// External are the externalRoots of initializationOptions.
	External []string
	// Sandbox is initializationOptions.sandbox, nil when absent (SPEC §14).
	Sandbox *wire.SandboxPolicy
	// Toolset is initializationOptions.toolset (SPEC §16) as a list of
	// family names, nil when absent; a string is split at commas.
	Toolset []string
}

// options is initializationOptions (SPEC §1).
type options struct {
	SessionID     *string             `json:"sessionId"`
	DataDir       *string             `json:"dataDir"`
	ExternalRoots []string            `json:"externalRoots"`
	Sandbox       *wire.SandboxPolicy `json:"sandbox"`
	Toolset       json.RawMessage     `json:"toolset"`
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Resolve returns the place of the session p describes.
func Resolve(d Defaults, p *protocol.InitializeParams) (Conf, error) {
	var opts options
	if p.InitializationOptions != nil {
		b, err := json.Marshal(p.InitializationOptions)
		if err == nil {
			err = json.Unmarshal(b, &opts)
		}
		if err != nil {
			return Conf{}, invalid("initializationOptions: %v", err)
		}
	}
	c := Conf{SessionID: d.SessionID, DataDir: d.DataDir, External: opts.ExternalRoots, Sandbox: opts.Sandbox}
	if len(opts.Toolset) > 0 && string(opts.Toolset) != "null" {
		var one string
		if json.Unmarshal(opts.Toolset, &one) == nil {
			c.Toolset = strings.Split(one, ",")
		} else if err := json.Unmarshal(opts.Toolset, &c.Toolset); err != nil {
			return Conf{}, invalid("initializationOptions.toolset must be a family name or a list of them: %v", err)
		}
	}
	if opts.SessionID != nil {
		c.SessionID = *opts.SessionID
	} else if c.SessionID == "" {
		c.SessionID = randomID()
	}
	// "." and ".." match the pattern but would put the scratch dir at or
	// above the data dir, which shutdown removes.
	if !idPattern.MatchString(c.SessionID) || c.SessionID == "." || c.SessionID == ".." {
		return Conf{}, invalid("sessionId %q must match %s and not be . or ..", c.SessionID, idPattern)
	}
	if opts.DataDir != nil {
		c.DataDir = *opts.DataDir
	}
	var err error
	if c.DataDir == "" {
		if c.DataDir, err = defaultDataDir(); err != nil {
			return Conf{}, err
		}
	}
	if c.DataDir, err = filepath.Abs(c.DataDir); err != nil {
		return Conf{}, invalid("dataDir: %v", err)
	}
	if c.Workspace, err = workspaceRoots(d.Root, p); err != nil {
		return Conf{}, err
	}
	return c, nil
}

func workspaceRoots(root string, p *protocol.InitializeParams) ([]string, error) {
	var roots []string
	for _, f := range p.WorkspaceFolders {
		d, err := uriPath(f.URI)
		if err != nil {
			return nil, err
		}
		roots = append(roots, d)
	}
	if len(roots) == 0 && p.RootURI != "" {
		d, err := uriPath(string(p.RootURI))
		if err != nil {
			return nil, err
		}
		roots = append(roots, d)
	}
	if len(roots) == 0 && root != "" {
		roots = append(roots, root)
	}
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		roots = append(roots, wd)
	}
	return roots, nil
}

func uriPath(u string) (string, error) {
	p, ok := roots.URIPath(u)
	if !ok {
		return "", invalid("workspace root %q is not a file:// URI", u)
	}
	return p, nil
}

func defaultDataDir() (string, error) {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "toolrpc"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("no dataDir given and no home directory to default to")
	}
	return filepath.Join(home, ".local", "state", "toolrpc"), nil
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
