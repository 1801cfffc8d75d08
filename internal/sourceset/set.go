package sourceset

import (
	"container/list"
	"sort"
	"sync"

	"github.com/toolrpc/toolrpc/limits"
)

var (
	maxFiles = limits.SourceSetMaxFiles // tests shorten it
	maxSpans = limits.SourceSetMaxSpans // tests shorten it
)

// Span is an inclusive range of 1-based line numbers.
type Span struct{ From, To int }

// Set is the edit source set of a session (SPEC §8): for each (path, tag), the
// line ranges shown whole. It is safe for concurrent use. Its memory is
// bounded: see the package documentation.
type Set struct {
	mu    sync.Mutex
	files map[key]*list.Element // value: *entry
	lru   *list.List            // front = most recently used
	spans int                   // total ranges over all entries
}

type key struct{ path, tag string }

type entry struct {
	k     key
	spans []Span // sorted, disjoint, never adjacent
}

// New returns an empty Set.
func New() *Set { return &Set{files: map[key]*list.Element{}, lru: list.New()} }

// Add records that lines from..to (1-based, inclusive) of the file at the
// absolute path abs, in the version whose tag is tag, were shown whole.
// Line numbers below 1 are ignored; an empty range adds nothing.
func (s *Set) Add(abs, tag string, from, to int) {
	from = max(from, 1)
	if from > to {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	el := s.touch(key{abs, tag}, true)
	e := el.Value.(*entry)
	before := len(e.spans)
	e.spans = insert(e.spans, Span{from, to})
	s.spans += len(e.spans) - before
	s.evict(el, Span{from, to})
}

// insert merges sp into the sorted, disjoint, non-adjacent spans.
func insert(spans []Span, sp Span) []Span {
	// i: first span that touches or follows sp; j: first span wholly after it.
	i := sort.Search(len(spans), func(k int) bool { return spans[k].To >= sp.From-1 })
	j := sort.Search(len(spans), func(k int) bool { return spans[k].From > sp.To+1 })
	if i < j {
		sp.From = min(sp.From, spans[i].From)
		sp.To = max(sp.To, spans[j-1].To)
	}
	if i == j {
		spans = append(spans, Span{})
		copy(spans[i+1:], spans[i:])
		spans[i] = sp
		return spans
	}
	spans[i] = sp
	return append(spans[:i+1], spans[j:]...)
}

// touch returns the entry of k, moved to the front of the LRU list; with
// create it makes a missing one, else it returns nil for a missing one.
func (s *Set) touch(k key, create bool) *list.Element {
	if el, ok := s.files[k]; ok {
		s.lru.MoveToFront(el)
		return el
	}
	if !create {
		return nil
	}
	el := s.lru.PushFront(&entry{k: k})
	s.files[k] = el
	return el
}

// evict restores the bounds after keep (the entry just added to) grew by near.
func (s *Set) evict(keep *list.Element, near Span) {
	for len(s.files) > maxFiles || s.spans > maxSpans {
		back := s.lru.Back()
		if back == keep {
			break
		}
		s.remove(back)
	}
	if s.spans <= maxSpans {
		return
	}
	// keep alone is over the bound: keep the ranges nearest the latest
	// addition, trimming to three quarters so the sort is amortised.
	e := keep.Value.(*entry)
	target := max(maxSpans*3/4, 1)
	dist := func(sp Span) int {
		switch {
		case sp.To < near.From:
			return near.From - sp.To
		case sp.From > near.To:
			return sp.From - near.To
		}
		return 0
	}
	kept := append([]Span(nil), e.spans...)
	sort.SliceStable(kept, func(a, b int) bool { return dist(kept[a]) < dist(kept[b]) })
	kept = kept[:target]
	sort.Slice(kept, func(a, b int) bool { return kept[a].From < kept[b].From })
	s.spans -= len(e.spans) - len(kept)
	e.spans = kept
}

func (s *Set) remove(el *list.Element) {
	e := el.Value.(*entry)
	s.spans -= len(e.spans)
	delete(s.files, e.k)
	s.lru.Remove(el)
}

// Has reports whether line n of (abs, tag) is in the set.
func (s *Set) Has(abs, tag string, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	el := s.touch(key{abs, tag}, false)
	if el == nil {
		return false
	}
	spans := el.Value.(*entry).spans
	i := sort.Search(len(spans), func(k int) bool { return spans[k].To >= n })
	return i < len(spans) && spans[i].From <= n
}

// Missing returns the lines of from..to (inclusive) that are not in the set
// of (abs, tag): at most limit of them, in ascending order, and how many there
// are in all.
func (s *Set) Missing(abs, tag string, from, to, limit int) (lines []int, count int) {
	if from > to {
		return nil, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var spans []Span
	if el := s.touch(key{abs, tag}, false); el != nil {
		spans = el.Value.(*entry).spans
	}
	i := sort.Search(len(spans), func(k int) bool { return spans[k].To >= from })
	n := from
	for n <= to {
		if i < len(spans) && spans[i].From <= n {
			n = spans[i].To + 1
			i++
			continue
		}
		gapEnd := to
		if i < len(spans) && spans[i].From-1 < to {
			gapEnd = spans[i].From - 1
		}
		for l := n; l <= gapEnd && len(lines) < limit; l++ {
			lines = append(lines, l)
		}
		count += gapEnd - n + 1
		n = gapEnd + 1
	}
	return lines, count
}

// Spans returns a copy of the ranges recorded for (abs, tag), ascending.
func (s *Set) Spans(abs, tag string) []Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	el := s.touch(key{abs, tag}, false)
	if el == nil {
		return nil
	}
	return append([]Span(nil), el.Value.(*entry).spans...)
}

// Forget drops everything recorded for (abs, tag).
func (s *Set) Forget(abs, tag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.files[key{abs, tag}]; ok {
		s.remove(el)
	}
}

// Size returns how many versions and ranges the set holds.
func (s *Set) Size() (versions, spans int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files), s.spans
}
