package search

import (
	"sync"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// Resumes keeps where a session's last few count and filesWithMatches
// greps stopped (at most limits.SearchContinuations), so the page that
// continues one searches on from there instead of searching every file
// before it again to skip offset entries. A nil Resumes keeps nothing. Its
// methods may be called concurrently.
//
// A grep continues a kept one (the continuation) only when all of these
// hold, and takes the normal path otherwise:
//   - it asks the same thing: every parameter but offset and headLimit is
//     equal (mode, pattern and its flags, glob, chunking, the searched
//     directory and its root);
//   - its offset is the number of entries the kept grep skipped and gave;
//   - its listing has the version (see Versioned) of the kept grep's
//     listing: the resident file table saw no change at all between the
//     two listings, so every file holds what it held.
//
// The answer is then the normal path's, byte for byte (SPEC §12): the
// files before the kept place hold exactly offset entries, which the
// normal path would find and skip, and the files from it on are searched
// as the normal path searches them. The content index's state is not part
// of the identity: narrowing keeps every file that holds a match, so the
// kept (narrowed) list yields the entries a fresh narrowing would.
//
// Content greps are never continued: their entries are lines, and a page
// may stop inside a file.
type Resumes struct {
	mu   sync.Mutex
	kept []*resume // oldest first
}

// Versioned is a listing that names the state of the file table it was
// taken in (filetable's listings): listings with equal (==) non-nil
// versions list the same files holding the same bytes. A version is
// comparable.
type Versioned interface {
	// Version names the table's state; equal versions, equal files.
	Version() any
}

// resumeKey is what a grep asks, but for its offset and headLimit.
type resumeKey struct {
	mode            Mode
	pattern         string // the compiled pattern with its flags
	multiline       bool
	glob            string
	chunkBytes      int
	start, boundary string
}

// resume is where one grep stopped.
type resume struct {
	key     resumeKey
	version any        // the listing's version
	files   walk.Files // the files it searched (listed and narrowed), in order
	next    int        // files[:next] hold exactly emitted entries
	emitted int        // entries it skipped and gave: the offset that continues it
}

// keyOf returns q's key, and false when q cannot be continued (content
// mode, or no Resumes).
func (q *Query) keyOf() (resumeKey, bool) {
	if q.Resume == nil || q.Mode == Content {
		return resumeKey{}, false
	}
	return resumeKey{mode: q.Mode, pattern: q.Matcher.re.String(), multiline: q.Matcher.multiline,
		glob: q.Glob, chunkBytes: q.ChunkBytes, start: q.Start, boundary: q.Boundary}, true
}

// versionOf returns files' version, or nil when it has none.
func versionOf(files walk.Files) any {
	if v, ok := files.(Versioned); ok {
		return v.Version()
	}
	return nil
}

// has reports whether a continuation of key at offset is kept (its
// version is not checked).
func (r *Resumes) has(key resumeKey, offset int) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.kept {
		if k.key == key && k.emitted == offset {
			return true
		}
	}
	return false
}

// take removes and returns the continuation of key at offset taken in
// version, or nil when none is kept. Continuations of the same root taken
// in another version are dropped: the tree changed since.
func (r *Resumes) take(key resumeKey, version any, offset int) *resume {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var found *resume
	kept := r.kept[:0]
	for _, k := range r.kept {
		switch {
		case k.key.boundary == key.boundary && k.version != version:
		case found == nil && version != nil && k.key == key && k.emitted == offset:
			found = k
		default:
			kept = append(kept, k)
		}
	}
	clear(r.kept[len(kept):])
	r.kept = kept
	return found
}

// keep records where a grep of key stopped, replacing any continuation of
// the same key and dropping the oldest past limits.SearchContinuations.
func (r *Resumes) keep(k *resume) {
	if r == nil || k.version == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.kept[:0]
	for _, o := range r.kept {
		if o.key != k.key {
			kept = append(kept, o)
		}
	}
	clear(r.kept[len(kept):])
	kept = append(kept, k)
	if n := len(kept) - limits.SearchContinuations; n > 0 {
		clear(kept[:n])
		kept = kept[n:]
	}
	r.kept = kept
}
