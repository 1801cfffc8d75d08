// Package process runs commands that outlive the call that started them —
// dev servers, watchers, REPLs, installers that ask [Y/n] — so that a model
// can drive them (SPEC §13) with the guarantees of a call's tree: no escape
// byte in what it reads, no byte lost without being counted, and no process
// left behind.
//
// # Processes
//
// A Process is a procgroup tree (its own cgroup, cookie and guardian, so
// server death kills it like any call's tree) connected by a pipe (stdout
// and stderr merged, stdin a pipe the server holds) or a pseudo-terminal
// (github.com/creack/pty). Its output goes through a Renderer into a Log.
// A Table holds one session's processes within limits.ProcessMaxLive and
// limits.ProcessMaxExited; a start reserves its slot before it spawns, so
// concurrent starts stay within the limit. Its Start, Read, Write, Signal
// and List are the five tools, each one call of the adapter answering the
// wire reply, refusals typed as *Error of a SPEC §10 kind. Every command is
// spawned through shell.Start.
//
// # Events
//
// Await answers on the first of five events. exit comes from waitid on the
// shell, never from end of file on its output. input comes from /proc: a
// thread of a process of the tree (on a pty, of the terminal's foreground
// process group, TIOCGPGRP) sleeping in read, readv or pread64 on the
// terminal or the stdin pipe (/proc/PID/task/TID/syscall and the fd's
// target), in epoll_wait on a set holding it (/proc/PID/fdinfo), in poll or
// select on a set holding it (read from its memory), or, on a terminal
// without ICANON, in poll or select with it as stdin. Two probes must find
// the same waits, nothing written may be left in the input queue, and a
// wait that ends by itself within limits.ProcessShortWait counts only once
// output rested as long: after a write, input means the program took the
// bytes and drew what it draws for them. It is probed
// only while a call waits for it and output is quiet, every
// limits.ProcessInputPoll, slowing to limits.ProcessInputPollMax, so quiet
// processes cost nothing. port comes from the tree's socket inodes against
// /proc/net/tcp and tcp6 in state 0A. idle and pattern come from the
// rendered lines.
//
// # Rendering
//
// The Renderer applies a line discipline (carriage return, backspace,
// erase-line and cursor moves within the line; SGR, OSC and every other
// escape dropped), parsing with github.com/charmbracelet/x/ansi, and holds
// back empty lines that a clear of the screen drops (clear.go). On a pty, a
// program on the alternate screen (less, vim, htop) is rendered by the
// terminal emulator github.com/charmbracelet/x/vt and shown as snapshots
// introduced by "[screen COLSxROWS]".
//
// # Log and cursors
//
// The Log keeps at least the last limits.ProcessLogKeepBytes of the
// rendered stream in a file; cursors are offsets in the whole stream, so
// they stay valid as its head is dropped. Read returns the tail of a range
// within the shell budget with the SPEC §6.2 tail marker naming the log,
// and counts what it leaves out: delivered + omitted = produced.
//
// # Outside Linux
//
// The input probe reads /proc; elsewhere input is never reported from the
// kernel and waits answer on idle.
package process
