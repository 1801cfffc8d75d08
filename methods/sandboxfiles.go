package methods

import (
	"context"
	"errors"
	"os"

	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/internal/sandbox"
	"github.com/toolrpc/toolrpc/internal/search"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/walk"
)

// The file tools obey the session's sandbox policy (SPEC §14): a path it
// denies to a command is SANDBOX_DENIED to read, edit and write, and never
// appears in a grep or glob result, not even by name or in a count. The
// tools enforce it themselves, so they do so on every OS, also where the
// kernel cannot confine commands.

// filePolicy is the session's policy as the disk is now
// (sandbox.Resolved.Now): a .git a command made since initialize is
// protected, and a denied key's symlink target denied, for this call.
func filePolicy(s *Session) *sandbox.Resolved { return s.policy().Now() }

// sandboxRead refuses rp when the session's policy denies reading it.
func sandboxRead(s *Session, rp roots.Path) error {
	return sandboxDenied(filePolicy(s).CheckRead(rp.Abs))
}

// sandboxWrite refuses rp when the session's policy denies changing it:
// outside the writable set, protected inside a writable root, or denied.
func sandboxWrite(s *Session, rp roots.Path) error {
	return sandboxDenied(filePolicy(s).CheckWrite(rp.Abs))
}

// sandboxOpened returns the check of the file a read of rp opened: a
// denied file reached under another name (renamed or hard-linked inside a
// writable root) is refused, as Landlock refuses it to a command.
func sandboxOpened(s *Session, rp roots.Path) func(*os.File) error {
	pol := s.policy()
	if !pol.Enforced() {
		return nil
	}
	return func(f *os.File) error { return pol.CheckOpened(f, rp.Abs) }
}

// sandboxDenied maps a policy's *sandbox.Denial to SANDBOX_DENIED, whose
// message is §14's notice and whose data names the operation and path.
func sandboxDenied(err error) error {
	var d *sandbox.Denial
	if !errors.As(err, &d) {
		return err
	}
	return rpc.Errorf(rpc.SandboxDenied, "%s", d.Error()).WithData(d.Wire())
}

// sandboxReadable reports that the session's policy lets abs be read: the
// filter of names a file tool may suggest.
func sandboxReadable(s *Session) func(abs string) bool {
	pol := filePolicy(s)
	if !pol.Enforced() {
		return nil
	}
	return func(abs string) bool { return pol.CheckRead(abs) == nil }
}

// sandboxList returns list with the policy's denied paths dropped from every
// listing (walk.Options' Keep and Dir, so denied files are neither stat'ed
// nor counted as ignored) and whether it dropped any below start. It returns
// list itself when nothing below start is denied, the common case.
func sandboxList(s *Session, list search.Lister, start string) (search.Lister, bool) {
	pol := filePolicy(s)
	if pol.ListFilter(start) == nil {
		return list, false
	}
	return func(ctx context.Context, opts walk.Options) (walk.Files, error) {
		if f := pol.ListFilter(opts.Start); f != nil {
			keep, dir := opts.Keep, opts.Dir
			opts.Keep = func(rel, name string) bool { return f.Keep(rel, name) && (keep == nil || keep(rel, name)) }
			opts.Dir = func(rel string) bool { return f.Dir(rel) && (dir == nil || dir(rel)) }
		}
		if list == nil {
			files, err := walk.Walk(ctx, opts)
			return walk.FileList(files), err
		}
		return list(ctx, opts)
	}, true
}
