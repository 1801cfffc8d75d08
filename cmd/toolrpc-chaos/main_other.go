//go:build !linux

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "toolrpc-chaos: runs on Linux only (it reads /proc and mounts a tmpfs)")
	os.Exit(2)
}
