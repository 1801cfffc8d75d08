//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolrpc/toolrpc/client"
)

// faceMCPBatch is an MCP host that writes its frames and closes stdin at
// once, as a shell script or a batch client does (issue 49): initialize,
// notifications/initialized, 1–50 tool calls and a ping in one write, then
// EOF. It reads stdout to its end.
const faceMCPBatch = "mcp-batch"

// batchBash are the commands of a batch session, each with its whole
// stdout: quick ones, a slow one the end of input cancels, one that leaves
// a detached child the server must kill.
var batchBash = []struct{ cmd, want string }{
	{"echo batch", "batch\n"},
	{"seq 1 5000", seqOut(5000)},
	{"sleep 0.3; echo slow", "slow\n"},
	{"setsid sleep 30 & echo bg", "bg\n"},
}

// batchCalls draws a batch session's tool calls: 1, 3 or up to 50.
func batchCalls(s *session, rng *rand.Rand) []*call {
	n := []int{1, 3, 1 + rng.IntN(50)}[rng.IntN(3)]
	w := newWorker(s, 0, rng)
	calls := make([]*call, n)
	for i := range calls {
		c := &call{}
		switch rng.IntN(4) {
		case 0:
			c.Method, c.Params = "tools/read", mustJSON(w.readParams())
		case 1:
			c.Method, c.Params = "tools/grep", mustJSON(w.grepParams())
		case 2:
			c.Method, c.Params = "tools/glob", mustJSON(w.globParams())
		default:
			b := batchBash[rng.IntN(len(batchBash))]
			c.Method, c.Params = "tools/bash", mustJSON(map[string]any{"command": b.cmd})
		}
		calls[i] = c
	}
	return calls
}

// batchSessionCalls are the calls of a batch session: the replayed log's,
// else drawn from rng.
func batchSessionCalls(s *session, rng *rand.Rand, replay []action) []*call {
	if replay == nil {
		return batchCalls(s, rng)
	}
	var calls []*call
	for _, a := range replay {
		if a.Call != nil && a.Worker == 0 {
			calls = append(calls, a.Call)
		}
	}
	return calls
}

// batchFrames is what the host writes: initialize (id 0), the initialized
// notification, calls[i] as tools/call id i+1, and a ping (id len(calls)+1).
func batchFrames(calls []*call) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"toolrpc-chaos","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}` + "\n")
	for i, c := range calls {
		p := mustJSON(map[string]any{"name": mcpName(c.Method), "arguments": c.Params})
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`+"\n", i+1, p)
	}
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", len(calls)+1)
	return []byte(b.String())
}

// batchReply is one line the server wrote.
type batchReply struct {
	ID     *int64          `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *client.Error   `json:"error"`
}

// checkBatch checks what a batch host read against the calls it wrote:
// every line a JSON-RPC message, initialize's result the first answer,
// each of the n calls and the ping answered exactly once, nothing else
// answered. It returns the answers by id.
func checkBatch(lines [][]byte, n int) (map[int64]batchReply, error) {
	got := map[int64]batchReply{}
	first := true
	for _, l := range lines {
		var r batchReply
		if err := json.Unmarshal(l, &r); err != nil {
			return got, fmt.Errorf("a line that is no JSON-RPC message: %v: %s", err, truncate(string(l), 200))
		}
		if r.Method != "" {
			continue // a notification (a build log line)
		}
		if r.ID == nil || *r.ID < 0 || *r.ID > int64(n)+1 {
			return got, fmt.Errorf("an answer to no request written: %s", truncate(string(l), 200))
		}
		if first && (*r.ID != 0 || r.Result == nil) {
			return got, fmt.Errorf("the first answer is not initialize's result: %s", truncate(string(l), 200))
		}
		first = false
		if _, dup := got[*r.ID]; dup {
			return got, fmt.Errorf("id %d answered twice", *r.ID)
		}
		got[*r.ID] = r
	}
	for id := int64(0); id <= int64(n)+1; id++ {
		if _, ok := got[id]; !ok {
			return got, fmt.Errorf("id %d of %d never answered (%d answers)", id, n+1, len(got))
		}
	}
	return got, nil
}

// batchSession runs s as a batch host: it writes the frames of calls and
// closes stdin at once, reads stdout to its end, and checks the answers:
// checkBatch, then each call's outcome as any session's. A server that did
// not answer initialize while an fd limit (lowNofile) or a data-dir fault
// was in force is counted, not reported: the same excuse as a server that
// does not start.
func (c *campaign) batchSession(ctx context.Context, s *session, calls []*call, lowNofile bool) {
	for _, cl := range calls {
		i := s.record(action{Worker: 0, Call: cl})
		s.finish(i, "written")
	}
	c.stats.count("batch calls", len(calls))
	if _, err := s.in.Write(batchFrames(calls)); err != nil {
		s.violate("batch-write", fmt.Sprintf("writing the frames: %v", err))
	}
	s.closeStdin("batch: frames written, stdin closed at once")
	read := make(chan [][]byte, 1)
	go func() {
		var lines [][]byte
		sc := bufio.NewScanner(s.out)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
		read <- lines
	}()
	var lines [][]byte
	select {
	case lines = <-read:
	case <-time.After(exitWithin + c.cfg.grace):
		s.violate("hang", fmt.Sprintf("a batch host's stdout has not ended %v after it closed stdin", exitWithin+c.cfg.grace))
		s.kill("hang")
		lines = <-read
	case <-ctx.Done():
		return
	}
	got, err := checkBatch(lines, len(calls))
	_, initialized := got[0]
	switch {
	case err == nil:
	case !initialized && (lowNofile || s.dataSeen.Load() || c.dataFault.Load() > 0):
		c.stats.count("start failed under a fault", 1)
	default:
		s.violate("batch-unanswered", err.Error())
	}
	for i, cl := range calls {
		r, ok := got[int64(i+1)]
		if !ok {
			continue
		}
		o := batchOutcome(r)
		if o.rpc != nil && o.rpc.Kind == "CANCELLED" {
			c.stats.count("batch calls cancelled by the end", 1)
		}
		c.checkOutcome(s, cl, o, batchWant(cl))
	}
}

// batchOutcome is a batch answer as the outcome of invokeMCP.
func batchOutcome(r batchReply) outcome {
	if r.Error != nil {
		return outcome{rpc: r.Error}
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return outcome{err: fmt.Errorf("decode tools/call result: %w", err)}
	}
	return mcpOutcome(&res)
}

// batchWant is the whole stdout of a batch bash call, or nil.
func batchWant(cl *call) *string {
	var p struct {
		Command string `json:"command"`
	}
	if cl.Method != "tools/bash" || json.Unmarshal(cl.Params, &p) != nil {
		return nil
	}
	for _, b := range batchBash {
		if b.cmd == p.Command {
			return &b.want
		}
	}
	return nil
}
