package walk

import (
	"cmp"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// sortNewestFirstByRel is SortNewestFirst of the files of one walk, whose
// Abs paths are all the start's path, a separator and Rel: where the
// separator is a slash, ordering ties by Rel orders them as Abs does,
// without comparing the start's path again and again.
//
// Most trees have long runs of files equal in time (unpacked from one
// archive, or copied with their times kept): the Linux tree's 78k files
// have one. Comparing two paths again from their first byte for each of a
// sort's n·log n comparisons, when they share long prefixes, was then most
// of the cost of a first grep's last step (26 ms on one core), so a run of
// equal times is sorted by a three-way radix quicksort (Bentley and
// Sedgewick's multikey quicksort), which looks at each byte of a shared
// prefix a few times instead, and whose parts are sorted on every core.
func sortNewestFirstByRel(files []File) {
	if filepath.Separator != '/' {
		SortNewestFirst(files)
		return
	}
	slices.SortFunc(files, func(a, b File) int { return cmp.Compare(b.ModTime, a.ModTime) })
	s := &multikeySorter{spare: make(chan struct{}, runtime.NumCPU()-1)}
	for i := 0; i < len(files); {
		j := i + 1
		for j < len(files) && files[j].ModTime == files[i].ModTime {
			j++
		}
		s.sort(files[i:j], 0)
		i = j
	}
	s.wg.Wait()
}

// multikeySorter sorts runs of files by Rel, handing parts of at least
// multikeyParallel files to another goroutine while a core is spare.
type multikeySorter struct {
	spare chan struct{} // one slot per core besides the caller's
	wg    sync.WaitGroup
}

const (
	// multikeyCutoff is the part below which paths are compared whole.
	multikeyCutoff = 12
	// multikeyParallel is the smallest part sorted on a goroutine of its own.
	multikeyParallel = 4096
)

// byteAt is the byte of s at d, or -1 past its end (a shorter path sorts
// first).
func byteAt(s string, d int) int {
	if d < len(s) {
		return int(s[d])
	}
	return -1
}

// sort sorts files by Rel, all of whose first d bytes are equal.
func (s *multikeySorter) sort(files []File, d int) {
	for len(files) > multikeyCutoff {
		p := byteAt(files[len(files)/2].Rel, d)
		// files[:lt] < p, files[lt:i] = p, files[gt:] > p (at byte d)
		lt, i, gt := 0, 0, len(files)
		for i < gt {
			switch c := byteAt(files[i].Rel, d); {
			case c < p:
				files[lt], files[i] = files[i], files[lt]
				lt++
				i++
			case c > p:
				gt--
				files[i], files[gt] = files[gt], files[i]
			default:
				i++
			}
		}
		s.part(files[:lt], d)
		s.part(files[gt:], d)
		if p < 0 {
			return // the equal ones end at d: one path, which a walk lists once
		}
		files, d = files[lt:gt], d+1
	}
	for i := 1; i < len(files); i++ {
		for j := i; j > 0 && strings.Compare(files[j].Rel[d:], files[j-1].Rel[d:]) < 0; j-- {
			files[j], files[j-1] = files[j-1], files[j]
		}
	}
}

// part sorts a part of a run: on another goroutine when it is large and a
// core is spare, else on this one.
func (s *multikeySorter) part(files []File, d int) {
	if len(files) >= multikeyParallel {
		select {
		case s.spare <- struct{}{}:
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.sort(files, d)
				<-s.spare
			}()
			return
		default:
		}
	}
	s.sort(files, d)
}
