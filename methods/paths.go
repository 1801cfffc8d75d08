package methods

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// resolvePath resolves p against the session's roots and maps failures to
// the wire errors of SPEC §10: an impossible path (NUL byte, symlink loop) is
// INVALID_ARGUMENT; a path outside the roots, or behind a directory the server
// may not search, is PERMISSION_DENIED. what prefixes messages ("read",
// "bash: cwd").
func resolvePath(s *Session, what, p string) (roots.Path, error) {
	rp, err := s.roots.Resolve(p)
	switch {
	case errors.Is(err, roots.ErrInvalidPath):
		return rp, rpc.Errorf(rpc.InvalidArgument, "%s %w", what, err)
	case errors.Is(err, roots.ErrOutsideRoots), errors.Is(err, fs.ErrPermission):
		return rp, rpc.Errorf(rpc.PermissionDenied, "%s %w", what, err)
	case err != nil:
		return rp, fmt.Errorf("%s %s: %w", what, p, err)
	}
	return rp, nil
}

// resolveExisting resolves the path argument of grep or glob (default: the
// first workspace root), which must exist.
func resolveExisting(s *Session, tool, p string) (roots.Path, error) {
	if p == "" {
		p = s.roots.First()
	}
	rp, err := resolvePath(s, tool, p)
	switch {
	case err != nil:
		return rp, err
	case !rp.Exists:
		return rp, rpc.Errorf(rpc.NotFound, "%s %s: no such file or directory", tool, p)
	}
	return rp, nil
}

// resolveWritable resolves a path a tool is about to modify: inside the
// workspace or the scratch dir, never an external root.
func resolveWritable(s *Session, tool, p string) (roots.Path, error) {
	if p == "" {
		return roots.Path{}, rpc.Errorf(rpc.InvalidArgument, "%s: path is required", tool)
	}
	rp, err := resolvePath(s, tool, p)
	if err != nil {
		return roots.Path{}, err
	}
	if rp.Root == roots.External {
		return roots.Path{}, rpc.Errorf(rpc.PermissionDenied, "%s %s: external roots are read-only", tool, rp.Display)
	}
	return rp, nil
}

// refusal maps an edit or write engine's refusal to its wire error (SPEC §10);
// other errors pass through.
func refusal(err error) error {
	var e *lineedit.Error
	if !errors.As(err, &e) {
		return err
	}
	switch e.Refusal {
	case lineedit.NotFound:
		return rpc.Errorf(rpc.NotFound, "%s", e.Msg)
	case lineedit.IsDirectory:
		return rpc.Errorf(rpc.IsDirectory, "%s", e.Msg)
	case lineedit.Stale:
		return rpc.Errorf(rpc.StaleTag, "%s", e.Msg).WithData(wire.StaleTagData{Tag: e.Tag})
	case lineedit.NotVisible:
		return rpc.Errorf(rpc.LineNotVisible, "%s", e.Msg).WithData(wire.LineNotVisibleData{Lines: e.Lines, More: e.More})
	}
	return rpc.Errorf(rpc.InvalidArgument, "%s", e.Msg) // NotRegular, BadRange
}
