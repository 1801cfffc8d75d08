package filetable

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/toolrpc/toolrpc/internal/gitignore"
	"github.com/toolrpc/toolrpc/walk"
)

// A persisted table is one file per root, beside the root's content index:
//
//	magic, version
//	root, saved (Unix ns, taken after every stamp of the file)
//	outside stamps (outsidePrint)
//	rules: source, line, text, negate
//	dirs, parents first: parent index + 1 (0 for the top), name,
//	  files (name, size, mtime), exclusions (name, dir, rule index)
//	one dirPrint per dir, in the same order
//	the SHA-256 of everything before it
//
// Numbers are varints, strings a length and bytes. A file of another
// version, of another root, damaged or cut short is never read as valid.
const (
	storeMagic   = "toolrpc filetable\n"
	storeVersion = 1
)

// errStore reports a persisted table that cannot be used.
var errStore = errors.New("persisted file table is damaged or of another version")

// errStopped is decodeStore's error when it was told to stop.
var errStopped = errors.New("decoding stopped")

// enc appends the format's values to b.
type enc struct{ b []byte }

func (e *enc) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) str(s string)  { e.uint(uint64(len(s))); e.b = append(e.b, s...) }

func (e *enc) bool(v bool) {
	if v {
		e.uint(1)
	} else {
		e.uint(0)
	}
}

func (e *enc) stamp(s stamp) {
	e.uint(s.ino)
	e.int(s.size)
	e.int(s.mtime)
	e.int(s.ctime)
	e.uint(uint64(s.mode))
}

func (e *enc) pathStamp(p pathStamp) { e.str(p.path); e.stamp(p.st) }

func (e *enc) dirPrint(p dirPrint) {
	e.stamp(p.self)
	e.stamp(p.rules[0])
	e.stamp(p.rules[1])
	e.stamp(p.git)
	e.pathStamp(p.exclude)
}

// dec reads the format's values from b; the first error sticks and every
// later value is zero.
type dec struct {
	b    []byte
	err  error
	stop *atomic.Bool // when set, decoding ends with errStopped (nil: never)
}

// idleDecodeHook, when set (tests), runs before each directory a decoder
// that can be stopped decodes (the idle read of Set.Prewarm): it stands for
// a thread that is not given a core.
var idleDecodeHook func(stop *atomic.Bool)

// stopped reports whether d was told to stop, ending it with errStopped.
func (d *dec) stopped() bool {
	if d.stop != nil && idleDecodeHook != nil {
		idleDecodeHook(d.stop)
	}
	if d.stop != nil && d.err == nil && d.stop.Load() {
		d.err = errStopped
	}
	return d.err != nil
}

func (d *dec) uint() uint64 { return varint(d, binary.Uvarint) }
func (d *dec) int() int64   { return varint(d, binary.Varint) }

// varint reads one number with read (binary.Uvarint or binary.Varint).
func varint[T uint64 | int64](d *dec, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b)
	if n <= 0 {
		d.err = errStore
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a number of items that each take at least one byte.
func (d *dec) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.err = errStore
		return 0
	}
	return int(n)
}

// str reads a string; it shares d.b's memory (see decodeStore).
func (d *dec) str() string {
	n := d.count()
	if d.err != nil || n == 0 {
		return ""
	}
	s := unsafe.String(&d.b[0], n)
	d.b = d.b[n:]
	return s
}

func (d *dec) bool() bool { return d.uint() != 0 }

func (d *dec) stamp() stamp {
	return stamp{ino: d.uint(), size: d.int(), mtime: d.int(), ctime: d.int(), mode: uint32(d.uint())}
}

func (d *dec) pathStamp() pathStamp { return pathStamp{path: d.str(), st: d.stamp()} }

func (d *dec) dirPrint() dirPrint {
	return dirPrint{self: d.stamp(), rules: [2]stamp{d.stamp(), d.stamp()}, git: d.stamp(), exclude: d.pathStamp()}
}

// encodeTree appends the rules and dirs sections of the tree below top to
// e and returns the print of each directory, in their order.
func (t *Table) encodeTree(e *enc) []dirPrint {
	ids := map[*gitignore.Rule]uint64{}
	var rules []*gitignore.Rule
	var dirs []*dirNode
	t.top.each(func(d *dirNode) {
		dirs = append(dirs, d)
		for _, x := range d.excl {
			if _, ok := ids[x.Rule]; !ok {
				ids[x.Rule] = uint64(len(rules))
				rules = append(rules, x.Rule)
			}
		}
	})
	e.uint(uint64(len(rules)))
	for _, r := range rules {
		e.str(r.Source)
		e.uint(uint64(r.Line))
		e.str(r.Text)
		e.bool(r.Negate)
	}
	index := make(map[*dirNode]uint64, len(dirs))
	prints := make([]dirPrint, len(dirs))
	e.uint(uint64(len(dirs)))
	for i, d := range dirs {
		index[d] = uint64(i)
		prints[i] = d.print
		if d.parent == nil {
			e.uint(0)
		} else {
			e.uint(index[d.parent] + 1)
		}
		e.str(d.name)
		e.uint(uint64(len(d.files)))
		for _, f := range d.files {
			e.str(f.name)
			e.int(f.size)
			e.int(f.mtime)
		}
		e.uint(uint64(len(d.excl)))
		for _, x := range d.excl {
			e.str(x.Name)
			e.bool(x.Dir)
			e.uint(ids[x.Rule])
		}
	}
	return prints
}

// stored is a decoded persisted table.
type stored struct {
	saved   int64
	outside []pathStamp
	rules   []*gitignore.Rule
	dirs    []*dirNode // dirs[0] is the top; parents before children
	prints  []dirPrint // one per dir
}

// decodeStore reads a persisted table of root from data. The strings of
// the table it returns share data's memory instead of each holding a copy
// (a name a file, 78k of them on a large tree): data must never be modified
// afterwards.
func decodeStore(data []byte, root string, stop *atomic.Bool) (*stored, error) {
	if stop != nil && stop.Load() {
		return nil, errStopped
	}
	if len(data) < len(storeMagic)+sha256.Size || !bytes.HasPrefix(data, []byte(storeMagic)) {
		return nil, errStore
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if h := sha256.Sum256(body); !bytes.Equal(h[:], sum) {
		return nil, errStore
	}
	d := &dec{b: body[len(storeMagic):], stop: stop}
	if d.uint() != storeVersion || d.str() != root {
		return nil, errStore
	}
	s := &stored{saved: d.int()}
	for range d.count() {
		s.outside = append(s.outside, d.pathStamp())
	}
	for range d.count() {
		s.rules = append(s.rules, &gitignore.Rule{Source: d.str(), Line: int(d.uint()), Text: d.str(), Negate: d.bool()})
	}
	s.decodeDirs(d)
	s.prints = make([]dirPrint, len(s.dirs))
	for i := range s.prints {
		if d.stopped() {
			return nil, d.err
		}
		s.prints[i] = d.dirPrint()
	}
	if d.err == errStopped {
		return nil, d.err
	}
	if d.err != nil || len(d.b) != 0 || len(s.dirs) == 0 {
		return nil, errStore
	}
	return s, nil
}

// decodeDirs reads the dirs section into s.dirs.
func (s *stored) decodeDirs(d *dec) {
	n := d.count()
	s.dirs = make([]*dirNode, 0, n)
	for i := range n {
		if d.stopped() {
			return
		}
		p, name := d.uint(), d.str()
		if d.err != nil || (i == 0) != (p == 0) || p > uint64(i) || (i > 0 && !validName(name)) {
			d.err = errStore
			return
		}
		node := &dirNode{wd: -1}
		if i > 0 {
			node.parent = s.dirs[p-1]
			path := joinRel(node.parent.path, name)
			node.path, node.name = path, path[len(path)-len(name):]
			node.parent.dirs = append(node.parent.dirs, node)
		}
		node.files = make([]fileEntry, d.count())
		for k := range node.files {
			node.files[k] = fileEntry{name: d.str(), size: d.int(), mtime: d.int()}
		}
		if k := d.count(); k > 0 {
			node.excl = make([]walk.Exclusion, k)
			for j := range node.excl {
				node.excl[j] = walk.Exclusion{Name: d.str(), Dir: d.bool()}
				r := d.uint()
				if r >= uint64(len(s.rules)) {
					d.err = errStore
					return
				}
				node.excl[j].Rule = s.rules[r]
			}
		}
		if len(node.files) == 0 {
			node.files = nil
		}
		s.dirs = append(s.dirs, node)
	}
}

// validName reports whether name can be an entry of a directory.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsRune(name, '/')
}
