//go:build unix

package checkpoint

import "os"

// linkUnlink renames oldpath to newpath unless newpath exists: link fails
// with EEXIST when it does, so it is as exclusive as RENAME_NOREPLACE.
func linkUnlink(oldpath, newpath string) error {
	if err := os.Link(oldpath, newpath); err != nil {
		return err
	}
	return os.Remove(oldpath)
}
