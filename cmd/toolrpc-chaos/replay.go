//go:build linux

package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// replay runs one violation's session again: same face, same seed, the
// same calls and faults at the same moments after the server started, each
// worker's calls in their order. Timing is as close as the machine allows,
// which is deterministic enough to debug.
func (c *campaign) replay(ctx context.Context, v *violation) []violation {
	c.replayFace = v.Face
	c.deadline = time.Now().Add(time.Hour)
	sl := c.newSlot(v.Slot)
	if len(v.Log) == 0 {
		v.Log = []action{{T: 1000, Worker: -1, Fault: "none"}}
	}
	c.runSession(ctx, sl, v.Session, v.Log)
	c.vmu.Lock()
	defer c.vmu.Unlock()
	return append([]violation(nil), c.violations...)
}

// replayActions starts one goroutine per worker of log, and one for its
// faults, each running its actions at their recorded times.
func (c *campaign) replayActions(ctx context.Context, s *session, log []action, wg *sync.WaitGroup) {
	byWorker := map[int][]action{}
	for _, a := range log {
		if a.Worker == -2 || a.Worker == -3 {
			continue // heartbeats and the driver's checks run anyway
		}
		byWorker[a.Worker] = append(byWorker[a.Worker], a)
	}
	for w, as := range byWorker {
		wg.Go(func() {
			for _, a := range as {
				sleepCtx(ctx, time.Until(s.t0.Add(time.Duration(a.T)*time.Millisecond)))
				if ctx.Err() != nil || s.ended.Load() {
					return
				}
				switch {
				case a.Call != nil:
					if a.Call.Expect != nil {
						s.sl.addVersion(a.Call.File, *a.Call.Expect)
					}
					o := s.do(ctx, w, a.Call)
					c.checkOutcome(s, a.Call, o, nil)
				case a.Fault == "none", a.Fault == "low-nofile", a.Fault == "disk-full", a.Fault == "data-read-only":
				case a.Fault != "":
					var seed uint64
					_, _ = fmt.Sscan(a.Outcome, &seed)
					c.inject(ctx, s, a.Fault, a.Arg, seed)
				}
			}
		})
	}
}
