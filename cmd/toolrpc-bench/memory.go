package main

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/toolrpc/toolrpc/limits"
)

// The memory row: many concurrent calls that each print a lot on both
// streams (issue 16 item 6).
const (
	rowHeavyRSS      = "server peak RSS, 64 concurrent bash calls printing 5 MB per stream (VmHWM)"
	heavyCalls       = limits.MaxConcurrentCalls
	heavyStreamBytes = 5 << 20
	heavyGoalMB      = 160
)

// heavyCommand prints heavyStreamBytes on stdout and on stderr at once.
var heavyCommand = fmt.Sprintf(`(yes 'out 0123456789 abcdefghijklmnopqrstuvwxyz' | head -c %d) & (yes 'err 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ' | head -c %d >&2) & wait`,
	heavyStreamBytes, heavyStreamBytes)

// heavyRSS runs heavyCalls output-heavy calls at once on a fresh server and
// reports its VmHWM; every call must report all its bytes.
func heavyRSS(b *bench, r *Row) error {
	s, err := b.fresh(b.cfg.goroot)
	if err != nil {
		return err
	}
	defer s.close()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	short := 0
	for range heavyCalls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, _, err := s.call("tools/bash", map[string]any{"command": heavyCommand, "timeout": limits.BashMaxTimeoutSeconds})
			var g struct {
				StdoutInfo, StderrInfo struct {
					Bytes int `json:"bytes"`
				}
			}
			if err == nil {
				err = json.Unmarshal(res, &g)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && firstErr == nil:
				firstErr = fmt.Errorf("heavy bash call: %w", err)
			case err == nil && (g.StdoutInfo.Bytes != heavyStreamBytes || g.StderrInfo.Bytes != heavyStreamBytes):
				short++
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	rss, err := statusBytes(s.pid(), "VmHWM")
	if err != nil {
		return err
	}
	r.ToolrpcValue, r.Runs, r.measured = float64(rss)/(1<<20), 1, true
	r.Note = fmt.Sprintf("%d calls, each 5 MB on stdout and 5 MB on stderr, all in flight at once", heavyCalls)
	if short > 0 {
		r.Status = statusMissed
		r.Note += fmt.Sprintf("; %d calls reported fewer bytes than printed", short)
	}
	return nil
}
