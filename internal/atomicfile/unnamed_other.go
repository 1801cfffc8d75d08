//go:build !linux || toolrpc_portable

package atomicfile

import (
	"errors"
	"os"

	"github.com/toolrpc/toolrpc/internal/beneath"
)

// unnamedFiles reports that Create writes to an unnamed file here.
const unnamedFiles = false

// createUnnamed has no unnamed files to offer here: the caller takes a
// named temporary file.
func createUnnamed(*beneath.Dir) (*os.File, bool) { return nil, false }

// linkUnnamed is never called without createUnnamed.
func linkUnnamed(*os.File, *beneath.Dir, string) error {
	return errors.New("atomicfile: no unnamed files here")
}
