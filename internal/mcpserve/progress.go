package mcpserve

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolrpc/toolrpc/limits"
)

// heartbeatInterval is limits.MCPHeartbeatInterval; tests shorten it.
var heartbeatInterval = limits.MCPHeartbeatInterval

// progressSettle is limits.MCPProgressSettle; tests set it to zero.
var progressSettle = limits.MCPProgressSettle

// Keys of a progress notification's _meta.
const (
	metaStream       = "toolrpc/stream"
	metaSeq          = "toolrpc/seq"
	metaSkippedBytes = "toolrpc/skippedBytes"
	metaHeartbeat    = "toolrpc/heartbeat"
)

// notifier sends a progress notification; ServerSession.NotifyProgress in production.
type notifier func(ctx context.Context, p *mcp.ProgressNotificationParams) error

// progress sends one call's notifications/progress: bash chunks and
// heartbeats, one strictly increasing counter across both, never after
// close. Sends are serialised, so the counter rises in wire order.
type progress struct {
	ctx       context.Context
	token     any
	send      notifier
	cancelled func() bool // the call's notifications/cancelled has been read

	mu     sync.Mutex
	count  float64
	last   time.Time
	closed bool

	stop chan struct{}
	done chan struct{}
}

// startProgress starts the heartbeat of a call with progress token token.
func startProgress(ctx context.Context, token any, send notifier, cancelled func() bool) *progress {
	p := &progress{ctx: ctx, token: token, send: send, cancelled: cancelled, last: time.Now(),
		stop: make(chan struct{}), done: make(chan struct{})}
	go p.heartbeat()
	return p
}

// notifyLocked sends one notification; p.mu is held.
func (p *progress) notifyLocked(message string, meta mcp.Meta) error {
	if p.closed || p.cancelled() {
		return nil
	}
	p.count++
	p.last = time.Now()
	return p.send(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.count, Message: message, Meta: meta})
}

// chunk is the value of a tools/bash $/progress notification (SPEC §6.4).
type chunk struct {
	Stream       string `json:"stream"`
	Seq          int    `json:"seq"`
	Data         string `json:"data"`
	SkippedBytes int64  `json:"skippedBytes"`
}

// rpcNotify is the notify function of the call's rpc.Call: it turns each
// $/progress of tools/bash into a notifications/progress.
func (p *progress) rpcNotify(method string, params any) error {
	if method != "$/progress" {
		return nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	var v struct {
		Value chunk `json:"value"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	meta := mcp.Meta{metaStream: v.Value.Stream, metaSeq: v.Value.Seq}
	if v.Value.SkippedBytes > 0 {
		meta[metaSkippedBytes] = v.Value.SkippedBytes
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.notifyLocked(v.Value.Data, meta)
}

// heartbeat sends a notification whenever the call has been silent for
// heartbeatInterval, until close.
func (p *progress) heartbeat() {
	defer close(p.done)
	t := time.NewTimer(heartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		p.mu.Lock()
		wait := heartbeatInterval - time.Since(p.last)
		if wait <= 0 {
			_ = p.notifyLocked("", mcp.Meta{metaHeartbeat: true})
			wait = heartbeatInterval
		}
		p.mu.Unlock()
		t.Reset(wait)
	}
}

// close stops the heartbeat; after it returns nothing more is sent. When a
// notification went out less than progressSettle ago, it returns only once
// that much time has passed, so the result does not follow it too closely.
func (p *progress) close() {
	p.mu.Lock()
	p.closed = true
	sent := p.count > 0
	wait := progressSettle - time.Since(p.last)
	p.mu.Unlock()
	close(p.stop)
	<-p.done
	if sent && wait > 0 && p.ctx.Err() == nil {
		time.Sleep(wait)
	}
}
