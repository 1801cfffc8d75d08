// Package filetable keeps, per workspace root, a resident table of the files
// a walk of that root finds (path, size, modification time; ignored entries
// are left out, as the walk leaves them out) and answers listings from it
// exactly as walk.Walk would answer them at the moment of the call.
//
// # How the table stays exact
//
// The table is built by the first listing that needs it, with one parallel
// walk.Walk of the root; with Set.DeferBuilds, a listing that would build
// it by walking the whole root walks as walk.Walk does instead, and the
// table is built after the call has answered (Set.BuildDeferred). Every
// directory it holds carries an inotify watch, added before the directory
// is listed, so no change between the listing and the watch is lost. The kernel queues an inotify event synchronously with the
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
// # A table an earlier server persisted
//
// A Set made by NewStoredSet writes each table to a file (beside the root's
// content index) limits.FileTableSaveDelay after it is built or changed,
// on a timer's goroutine, and when the set is closed. The file holds the
// tree and, per directory, a stamp (inode, size, times, mode) of the
// directory, its .gitignore, .ignore and .git entries and the info/exclude
// a .git names, plus stamps of what lies outside the tree (the ignore
// files and .git entries above the root, the repository's info/exclude,
// the global excludes file and its path). A save stamps nothing: each
// directory's stamps are the ones taken when the table last listed it
// (after its watch, before the listing), and the outside stamps the ones
// taken when the outside was last watched. So the file never vouches for
// more than the table saw: a listing that went stale without the table
// knowing (an event held back or lost, a directory that could not be
// watched) is written with the stamps of the directory it listed, and the
// next server, finding them changed, lists that directory again. The file is
// versioned and checksummed: another version, a damaged or a truncated
// file is ignored, and the root is walked.
//
// A new table that finds the file checks the outside stamps (any change: the
// root is walked), then, on every core, adds a watch to each directory of
// the file's tree and only then stamps that directory again: one whose
// entries or permissions changed is listed again, one that was replaced or
// whose ignore files or .git entry changed is walked again with everything
// below it (both through the same scoped walk.Walk as events), and the files
// of every other directory are stat'ed, updating their sizes and times (an
// ignore file or .git entry a directory did not have is not looked for while
// its own stamp stands: creating one changes it). A change made before a
// watch shows in a stamp, one made after it is an event. A stamp whose time
// lies within limits.FileTableRacyWindow of the save is not trusted (a
// change in the same timestamp tick leaves it unchanged): its directory is
// listed, or walked, again.
//
// With Set.DeferBuilds the first listing stamps without watching: it
// answers from those stamps, and BuildDeferred (or the next listing, if it
// comes first) adds each directory's watch, then stamps it again and
// judges it against the first stamps as the load judged it against the
// save (the racy window counted from the first stamps). The first call on
// a known tree then pays one stat per file and no watch.
//
// # When there is no table
//
// A root on a file system whose events are unreliable (NFS, CIFS/SMB, FUSE,
// 9p, overlay, Ceph, AFS, Coda; told by statfs of the root and of each
// mount point below it, which /proc/self/mountinfo lists) gets no table. An inotify
// queue overflow re-walks the whole root; running out of watches
// (fs.inotify.max_user_watches) or inotify instances turns the table off for
// the root. Each of these is logged, and listings then return ok=false so the
// caller walks as it would without a table.
//
// The table is dropped when its Set is closed (with the session) or when the
// root is deleted, renamed or replaced: the root's parent reports its name
// changed, or, when a directory above the root cannot be watched, each
// listing finds the root's inode changed.
package filetable
