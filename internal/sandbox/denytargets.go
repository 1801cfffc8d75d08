package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"
)

// denyTargetsTTL is how long the resolved targets of the symlinked deny
// entries are reused: a walk's filter and a file tool's check cost no
// lstat within it.
const denyTargetsTTL = time.Second

// denyTargets caches denyReadNow's list.
type denyTargets struct {
	cur atomic.Pointer[denyTargetsAt]
}

type denyTargetsAt struct {
	at   time.Time
	list []string
}

// denyReadNow returns DenyRead with the target of each entry that is a
// symlink (resolved at most denyTargetsTTL ago): a link made or changed
// since the policy was resolved denies what it leads to, as the wrapper and
// the confined thread do for commands (confine's withTargets).
func (r *Resolved) denyReadNow() []string {
	if r.targets == nil {
		return resolveDenyTargets(r.DenyRead)
	}
	now := time.Now()
	if c := r.targets.cur.Load(); c != nil && now.Sub(c.at) < denyTargetsTTL {
		return c.list
	}
	list := resolveDenyTargets(r.DenyRead)
	r.targets.cur.Store(&denyTargetsAt{at: now, list: list})
	return list
}

// resolveDenyTargets returns deny with the current target of each entry
// that is a symlink added; an lstat per entry.
func resolveDenyTargets(deny []string) []string {
	out := deny
	for _, d := range deny {
		fi, err := os.Lstat(d)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		t, err := filepath.EvalSymlinks(d)
		if err != nil || slices.Contains(out, t) {
			continue
		}
		if len(out) == len(deny) {
			out = slices.Clone(deny)
		}
		out = append(out, t)
	}
	return out
}
