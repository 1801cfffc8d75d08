package roots

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolrpc/toolrpc/limits"
)

// Suggest returns the display paths of up to limits.ReadMaxSuggestions
// entries of abs's directory whose names are close to abs's base name,
// closest first; entries outside the roots are never suggested.
func (r *Roots) Suggest(abs string) []string { return r.SuggestKept(abs, nil) }

// SuggestKept is Suggest without the entries whose absolute path keep
// refuses (nil keeps all): the sandbox's denied paths are never named.
func (r *Roots) SuggestKept(abs string, keep func(abs string) bool) []string {
	dir, base := filepath.Split(abs)
	d, err := os.Open(dir)
	if err != nil {
		return []string{}
	}
	defer d.Close()
	names, _ := d.Readdirnames(limits.ReadSuggestScanEntries)
	type cand struct {
		name  string
		score int
	}
	var cands []cand
	for _, n := range names {
		if sc, ok := similarity(base, n); ok {
			cands = append(cands, cand{n, sc})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score < cands[j].score
		}
		return cands[i].name < cands[j].name
	})
	out := []string{}
	for _, c := range cands {
		if len(out) == limits.ReadMaxSuggestions {
			break
		}
		p, err := r.Classify(filepath.Join(dir, c.name))
		if err != nil || keep != nil && !keep(p.Abs) {
			continue
		}
		out = append(out, p.Display)
	}
	return out
}

// similarity scores how close name is to want (lower is closer): their
// edit distance ignoring case. name is similar when that distance is at most a
// third of want's length, or when the two share a stem (another extension) or
// one is a prefix of the other.
func similarity(want, name string) (int, bool) {
	w, n := strings.ToLower(want), strings.ToLower(name)
	wr, nr := []rune(w), []rune(n)
	d := editDistance(wr, nr, max(len(wr), len(nr)))
	stem := func(s string) string { return strings.TrimSuffix(s, filepath.Ext(s)) }
	switch {
	case d <= max(1, len(wr)/3):
	case stem(w) != "" && stem(w) == stem(n):
	case len(w) >= 3 && len(n) >= 3 && (strings.HasPrefix(n, w) || strings.HasPrefix(w, n)):
	default:
		return 0, false
	}
	return d, true
}

// editDistance is the edit distance of a and b counting an insertion,
// deletion, substitution or swap of two adjacent characters as one (optimal
// string alignment), or bound+1 when it is larger than bound.
func editDistance(a, b []rune, bound int) int {
	if d := len(a) - len(b); d > bound || -d > bound {
		return bound + 1
	}
	pprev := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pprev[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > bound {
			return bound + 1
		}
		pprev, prev, cur = prev, cur, pprev
	}
	return prev[len(b)]
}
