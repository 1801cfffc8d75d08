//go:build windows

// Command winehelper is the PE stand-in the Wine tests (wine_test.go) build
// for windows/amd64: no PE bash exists on the test machine, so it is the
// bash.exe that TOOLRPC_BASH names, and the program it runs.
//
// As a shell, `winehelper -c LINE` runs LINE: commands separated by `;`,
// each a list of words separated by spaces (no quoting, no pipes). Run
// without -c, its arguments are one command. Commands:
//
//	echo WORD…       prints the words and a newline
//	sleep S          sleeps S seconds
//	exit N           exits with status N
//	lines N          prints the lines 1 … N
//	tree DIR W D     a process tree: writes DIR/pid-PID, starts W children that
//	                 run `tree DIR W D-1` (when D > 0; the last child of each
//	                 level is detached: DETACHED_PROCESS|CREATE_NEW_PROCESS_GROUP),
//	                 then sleeps ten minutes
//	prompt TEXT      prints TEXT with no newline, reads a line, prints `got LINE`
//	count MARK       prints how many processes of Wine's process list
//	                 (Toolhelp32) have MARK in their executable's path
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

func main() {
	args := os.Args[1:]
	if len(args) == 2 && args[0] == "-c" {
		for _, c := range strings.Split(args[1], ";") {
			if w := strings.Fields(c); len(w) > 0 {
				run(w)
			}
		}
		return
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: winehelper -c LINE | winehelper COMMAND ARG…")
		os.Exit(2)
	}
	run(args)
}

func run(w []string) {
	switch w[0] {
	case "echo":
		fmt.Println(strings.Join(w[1:], " "))
	case "sleep":
		s, _ := strconv.ParseFloat(arg(w, 1), 64)
		time.Sleep(time.Duration(s * float64(time.Second)))
	case "exit":
		n, _ := strconv.Atoi(arg(w, 1))
		os.Exit(n)
	case "lines":
		n, _ := strconv.Atoi(arg(w, 1))
		out := bufio.NewWriter(os.Stdout)
		for i := 1; i <= n; i++ {
			fmt.Fprintln(out, i)
		}
		out.Flush()
	case "tree":
		width, _ := strconv.Atoi(arg(w, 2))
		depth, _ := strconv.Atoi(arg(w, 3))
		tree(arg(w, 1), width, depth)
	case "prompt":
		fmt.Print(strings.Join(w[1:], " "))
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Printf("got %s\n", strings.TrimRight(line, "\r\n"))
	case "count":
		fmt.Println(count(arg(w, 1)))
	default:
		fmt.Fprintf(os.Stderr, "winehelper: %s: command not found\n", w[0])
		os.Exit(127)
	}
}

func arg(w []string, i int) string {
	if i < len(w) {
		return w[i]
	}
	return ""
}

// tree writes its pid file, starts its children and sleeps.
func tree(dir string, width, depth int) {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if depth > 0 {
		for i := 0; i < width; i++ {
			c := exec.Command(self, "tree", dir, strconv.Itoa(width), strconv.Itoa(depth-1))
			if i == width-1 {
				c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP}
			}
			if err := c.Start(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
	// Written once the children are started, so a full count of pid files
	// means every process of the tree exists.
	name := filepath.Join(dir, fmt.Sprintf("pid-%d", os.Getpid()))
	if err := os.WriteFile(name, nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	time.Sleep(10 * time.Minute)
}

// count counts the processes whose executable path holds mark.
func count(mark string) int {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer windows.CloseHandle(snap)
	n := 0
	e := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if e.ProcessID == uint32(os.Getpid()) {
			continue
		}
		h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, e.ProcessID)
		if err != nil {
			continue
		}
		buf := make([]uint16, windows.MAX_LONG_PATH)
		size := uint32(len(buf))
		if windows.QueryFullProcessImageName(h, 0, &buf[0], &size) == nil &&
			strings.Contains(strings.ToLower(windows.UTF16ToString(buf[:size])), strings.ToLower(mark)) {
			n++
		}
		windows.CloseHandle(h)
	}
	return n
}
