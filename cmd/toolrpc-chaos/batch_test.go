//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCheckBatch_DetectsBroken: the batch host's check rejects no answer
// at all (issue 49: the server wrote nothing), initialize not answered
// first, a call answered twice, a call never answered, an answer to no
// request written, and a line that is no JSON; it passes whole answers in
// any order after initialize's, notifications between them.
func TestCheckBatch_DetectsBroken(t *testing.T) {
	initLine := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}`
	call := func(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`, id) }
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`
	for name, tc := range map[string]struct {
		lines []string
		ok    bool
	}{
		"nothing written":           {nil, false},
		"initialize not first":      {[]string{call(1), initLine, call(2), call(3)}, false},
		"a call answered twice":     {[]string{initLine, call(1), call(1), call(2), call(3)}, false},
		"a call never answered":     {[]string{initLine, call(2), call(3)}, false},
		"the ping never answered":   {[]string{initLine, call(1), call(2)}, false},
		"an answer to no request":   {[]string{initLine, call(1), call(2), call(3), call(4)}, false},
		"a line that is no JSON":    {[]string{initLine, call(1), "{", call(2), call(3)}, false},
		"an initialize error first": {[]string{`{"jsonrpc":"2.0","id":0,"error":{"code":-32603,"message":"x"}}`, call(1), call(2), call(3)}, false},
		"whole, in any order":       {[]string{initLine, note, call(3), call(1), note, call(2)}, true},
	} {
		var lines [][]byte
		for _, l := range tc.lines {
			lines = append(lines, []byte(l))
		}
		_, err := checkBatch(lines, 2)
		if tc.ok && err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !tc.ok && err == nil {
			t.Errorf("%s: passed", name)
		}
	}
}

// batchSessionCheck runs the batch pattern on c against the real server:
// 50 calls (slow bash, a detached child, seq, reads, greps, globs) written
// with initialize and a ping, stdin closed at once. It must find no
// violation: every call answered once, initialize first, the contract of
// each result, no survivor, a clean log (no `initialized before
// initialize`). Against a server without the issue 49 fix it reports
// batch-unanswered. TestCampaign runs it on its campaign once the campaign
// has ended, so it costs no second template.
func batchSessionCheck(t *testing.T, c *campaign) {
	before := len(c.violations)
	c.deadline = time.Now().Add(time.Minute)
	c.replayFace = faceMCPBatch
	calls0, cancelled0 := c.stats.get("batch calls"), c.stats.get("batch calls cancelled by the end")
	var log []action
	for i := range 50 {
		cl := &call{Method: "tools/bash", Params: mustJSON(map[string]any{"command": batchBash[i%len(batchBash)].cmd})}
		switch i % 7 {
		case 4:
			cl = &call{Method: "tools/read", Params: mustJSON(map[string]any{"path": "big.txt", "limit": 10})}
		case 5:
			cl = &call{Method: "tools/grep", Params: mustJSON(map[string]any{"pattern": quietPattern, "outputMode": "count"})}
		case 6:
			cl = &call{Method: "tools/glob", Params: mustJSON(map[string]any{"pattern": "src/*/f00*", "limit": 10})}
		}
		log = append(log, action{Worker: 0, Call: cl})
	}
	c.runSession(context.Background(), c.newSlot(c.cfg.slots), 0, log)
	for _, v := range c.violations[before:] {
		t.Errorf("%s: %s", v.Kind, v.Detail)
	}
	if got := c.stats.get("batch calls") - calls0; got != 50 {
		t.Errorf("batch calls: %d, want 50", got)
	}
	t.Logf("batch session: %d of 50 calls cancelled by the end of input", c.stats.get("batch calls cancelled by the end")-cancelled0)
}

// TestBatchFrames: the host's frames are one JSON-RPC message a line,
// initialize first and the ping last.
func TestBatchFrames(t *testing.T) {
	calls := []*call{{Method: "tools/read", Params: mustJSON(map[string]any{"path": "a"})}, {Method: "tools/process/list"}}
	lines := strings.Split(strings.TrimSuffix(string(batchFrames(calls)), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
	type frame struct {
		ID     *int64 `json:"id"`
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var msgs []frame
	for _, l := range lines {
		var m frame
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		msgs = append(msgs, m)
	}
	if msgs[0].Method != "initialize" || *msgs[0].ID != 0 || msgs[1].Method != "notifications/initialized" || msgs[1].ID != nil ||
		msgs[2].Params.Name != "read" || msgs[3].Params.Name != "process_list" || *msgs[3].ID != 2 || msgs[4].Method != "ping" || *msgs[4].ID != 3 {
		t.Errorf("frames: %q", lines)
	}
}
