// Package filetable keeps, per workspace root, a resident table of the files
// a walk of that root finds (path, size, modification time; ignored entries
// are left out, as the walk leaves them out) and answers listings from it
// exactly as walk.Walk would answer them at the moment of the call.
//
// # How the table stays exact
//
// The table is built by the first listing that needs it, with one parallel
// walk.Walk of the root. Every directory it holds carries an inotify watch,
// added before the directory is listed, so no change between the listing and
// the watch is lost. The kernel queues an inotify event synchronously with the
// change that causes it; before a listing uses the table it reads the inotify
// descriptor until it is empty (EAGAIN) and applies what it read. A change
// that completed before the listing started is therefore always seen.
//
// Events are applied by asking the file system again, never by trusting the
// event alone: a directory with created, deleted or renamed entries is listed
// again, a directory whose ignore files (or whose .git entry) changed is
// walked again with everything below it, and a modified file is stat'ed
// again. Those re-listings are one walk.Walk of the root that enters only the
// directories concerned, so every verdict is the walk's own.
//
// A listing is a snapshot: each File is built when it is read, and the
// whole-root newest-first order is computed once per change. The entries the
// ignore rules excluded are kept per directory too, so a listing also
// answers for walk.Options.Excluded (the ignored-files notice).
//
// # When there is no table
//
// A root on a file system whose events are unreliable (NFS, CIFS/SMB, FUSE,
// 9p, overlay, Ceph, AFS, Coda; told by statfs) gets no table. An inotify
// queue overflow re-walks the whole root; running out of watches
// (fs.inotify.max_user_watches) or inotify instances turns the table off for
// the root. Each of these is logged, and listings then return ok=false so the
// caller walks as it would without a table.
//
// The table is dropped when its Set is closed (with the session) or when the
// root is deleted or renamed.
package filetable
