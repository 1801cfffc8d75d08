package contentindex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/internal/atomicfile"
	"github.com/toolrpc/toolrpc/limits"
)

// File names inside an index directory.
const (
	indexName    = "index"    // the finished index
	lockName     = "lock"     // flock'ed by the one process building
	buildDirName = "build"    // runs of a build in progress (resumable)
	manifestName = "manifest" // the paths a build indexes, one per line
)

// ErrQuota reports that an index would be larger than
// limits.IndexQuotaPercent of the text it indexes.
var ErrQuota = errors.New("index would exceed its disk quota")

// maxDocs is the most files one index holds: a run stores a document id in
// 24 bits beside its trigram and mask.
const maxDocs = 1<<24 - 1

// ErrTooManyFiles reports a root with more files than one index holds.
var ErrTooManyFiles = errors.New("too many files for one index")

// docRec is one document of a build.
type docRec struct {
	rel         string
	size, mtime int64
	flags       uint32
	blocks      uint32 // how many blocks it was read as (0: not indexed)
	// starts holds where each block but the first starts in the file
	// (blocks-1 offsets, ascending).
	starts []uint32
}

// builder writes an index of a fixed list of files, in runs of
// limits.IndexRunPairs (trigram, document) pairs, then merges the runs.
type builder struct {
	root, dir string // the root and the index directory
	build     string // dir/build
	paths     []string
	docs      []docRec
	pairs     []uint64 // tri<<pairTriShift | mask<<pairMaskShift | doc of the current run
	tmp       []uint64 // radix sort scratch
	runLo     int      // first document of the current run
	block     uint32   // the next block's id
	cur, mark int      // the document being read, and where its pairs start
	err       error    // of a run written while a document was read
	set       *triSet
	buf       []byte
	pace      *pacer
	now       func() time.Time // tests set it
}

var runPairs = limits.IndexRunPairs // tests shorten it

// build indexes paths (relative to root, in that order) into dir/index,
// resuming a build of the same paths that an earlier process left in
// dir/build. The caller holds dir/lock.
func build(ctx context.Context, root, dir string, paths []string, pace *pacer) (resumedAt int, err error) {
	b := &builder{root: root, dir: dir, build: filepath.Join(dir, buildDirName), set: newTriSet(), pace: pace, now: time.Now}
	defer func() {
		if err != nil && ctx.Err() == nil {
			_ = os.RemoveAll(b.build) // only a stopped build resumes
		}
	}()
	if len(paths) > maxDocs {
		return 0, fmt.Errorf("%d files: %w", len(paths), ErrTooManyFiles)
	}
	start, err := b.resume(paths)
	if err != nil {
		return 0, err
	}
	b.runLo = start
	for _, d := range b.docs[:start] {
		b.block += d.blocks
	}
	pace.meter.Add(start) // a resumed build's earlier files are done
	b.buf = make([]byte, 256*limits.KB)
	b.pairs = make([]uint64, 0, runPairs+min(runPairs, 64*limits.KB))
	for i := start; i < len(b.paths); i++ {
		if err := ctx.Err(); err != nil {
			return start, err
		}
		b.addFile(i)
		if b.err != nil {
			return start, b.err
		}
		if b.block > maxDocs {
			return start, fmt.Errorf("%d blocks: %w", b.block, ErrTooManyFiles)
		}
		if len(b.pairs) >= runPairs {
			if err := b.flushRun(i + 1); err != nil {
				return start, err
			}
		}
	}
	if err := b.flushRun(len(b.paths)); err != nil {
		return start, err
	}
	if err := b.merge(); err != nil {
		return start, err
	}
	return start, os.RemoveAll(b.build)
}

// resume starts a build of paths, or continues the one in dir/build when
// it indexes the same paths; it returns the first document left to index.
func (b *builder) resume(paths []string) (int, error) {
	manifest := filepath.Join(b.build, manifestName)
	want := b.root + "\n" + strings.Join(paths, "\n")
	if old, err := os.ReadFile(manifest); err == nil && string(old) == want {
		b.paths = paths
		b.docs = make([]docRec, len(paths))
		for i, p := range paths {
			b.docs[i].rel = p
		}
		runs, err := b.runs()
		if err == nil {
			next := 0
			for _, r := range runs {
				if r.lo != next || b.readRunDocs(r) != nil {
					break
				}
				next = r.hi
			}
			b.dropRunsFrom(next)
			return next, nil
		}
	}
	if err := os.RemoveAll(b.build); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(b.build, 0o700); err != nil {
		return 0, err
	}
	if err := atomicfile.WriteFile(manifest, []byte(want), 0o600); err != nil {
		return 0, err
	}
	b.paths = paths
	b.docs = make([]docRec, len(paths))
	for i, p := range paths {
		b.docs[i].rel = p
	}
	return 0, nil
}

// addFile reads document i and adds the trigrams of its blocks to the run.
func (b *builder) addFile(i int) {
	defer b.pace.tick()
	b.pace.meter.Add(1)
	d := &b.docs[i]
	b.cur, b.mark = i, len(b.pairs)
	first := b.block
	d.starts = nil
	d.size, d.mtime, d.flags = scanFile(b.root+"/"+d.rel, b.set, b.buf, b.now(), func(set *triSet, next int64) {
		b.addBlock(set)
		d.starts = append(d.starts, uint32(next))
	})
	if d.flags&docIndexed == 0 {
		b.pairs, b.block, d.starts = b.pairs[:b.mark], first, nil
		return
	}
	b.addBlock(b.set)
	d.blocks = b.block - first
}

// addBlock adds the trigrams of set as the next block. When they would
// grow the run past its capacity, the documents before the current one are
// written as a run first, so a file of many blocks does not double the
// builder's memory.
func (b *builder) addBlock(set *triSet) {
	tris := set.Sorted()
	if b.mark > 0 && len(b.pairs)+len(tris) > cap(b.pairs) && b.err == nil {
		rest := slices.Clone(b.pairs[b.mark:])
		b.pairs = b.pairs[:b.mark]
		b.err = b.flushRun(b.cur)
		b.pairs = append(b.pairs[:0], rest...)
		b.mark = 0
	}
	for _, t := range tris {
		b.pairs = append(b.pairs, uint64(t)<<pairTriShift|uint64(set.Mask(t))<<pairMaskShift|uint64(b.block&maxDocs))
	}
	b.block++
}
