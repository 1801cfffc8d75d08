package client

import (
	"errors"
	"fmt"
	"time"
)

// Close ends the session politely: shutdown (waiting up to 30 s for its
// reply), exit, then it closes the server's input and waits up to 30 s for
// the server to end. A started server that does not exit by then is
// killed, and Close says so. Close returns nil only when the server
// answered shutdown and (if started) exited with status 0. Calling Close
// again returns the first call's result.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

func (c *Conn) close() error {
	var errs []error
	select {
	case <-c.done:
		errs = append(errs, fmt.Errorf("client: shutdown: %w: %w", ErrClosed, c.readErr))
	default:
		if err := c.shutdown(); err != nil {
			errs = append(errs, err)
		}
		if err := c.Notify("exit", nil); err != nil {
			errs = append(errs, err)
		}
	}
	c.in.Close()
	errs = append(errs, c.awaitEnd())
	return errors.Join(errs...)
}

// shutdown sends shutdown and waits up to shutdownWait for its reply. It
// does not cancel the request on timeout: the server is ended anyway.
func (c *Conn) shutdown() error {
	p := &pendingCall{reply: make(chan reply, 1)}
	id, err := c.send("shutdown", nil, p)
	if err != nil {
		return err
	}
	t := time.NewTimer(shutdownWait)
	defer t.Stop()
	select {
	case r := <-p.reply:
		if r.err != nil {
			return fmt.Errorf("client: shutdown: %w", r.err)
		}
		return nil
	case <-c.done:
		r, err := c.lost("shutdown", id, p)
		if err == nil && r.err != nil {
			err = fmt.Errorf("client: shutdown: %w", r.err)
		}
		return err
	case <-t.C:
		c.forget(id)
		return fmt.Errorf("client: shutdown: no reply within %v", shutdownWait)
	}
}

// awaitEnd waits for the server to end after its input closed: the process
// to exit (killed after exitWait), or, attached, its output to end (closed
// after exitWait).
func (c *Conn) awaitEnd() error {
	t := time.NewTimer(exitWait)
	defer t.Stop()
	if c.cmd == nil {
		select {
		case <-c.done:
		case <-t.C:
			c.out.Close()
			<-c.done
			return fmt.Errorf("client: the server's output did not end within %v of exit; closed it", exitWait)
		}
		return nil
	}
	var err error
	select {
	case <-c.exited:
	case <-t.C:
		_ = c.cmd.Process.Kill()
		<-c.exited
		err = fmt.Errorf("client: the server did not exit within %v of exit; killed", exitWait)
	}
	// A process the server left behind may hold its stdout open.
	select {
	case <-c.done:
	case <-time.After(outputGrace):
		c.out.Close()
		<-c.done
	}
	if err != nil {
		return err
	}
	if c.waitErr != nil {
		return fmt.Errorf("client: server exit: %w", c.waitErr)
	}
	return nil
}

// Kill ends the connection without the shutdown handshake: it closes the
// server's input and output and, for a started server, kills the process
// and waits for it.
func (c *Conn) Kill() {
	c.closeOnce.Do(func() {
		c.closeErr = errors.New("client: killed")
		c.in.Close()
		if c.cmd != nil {
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
		c.out.Close()
		<-c.done
	})
}
