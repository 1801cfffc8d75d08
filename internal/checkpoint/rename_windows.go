package checkpoint

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// renameNoReplace renames oldpath to newpath unless newpath exists
// (fs.ErrExist): MoveFileEx without MOVEFILE_REPLACE_EXISTING fails with
// ERROR_ALREADY_EXISTS when newpath exists, atomically on NTFS.
func renameNoReplace(oldpath, newpath string) error {
	from, err := windows.UTF16PtrFromString(oldpath)
	if err != nil {
		return err
	}
	to, err := windows.UTF16PtrFromString(newpath)
	if err != nil {
		return err
	}
	err = windows.MoveFileEx(from, to, windows.MOVEFILE_WRITE_THROUGH)
	if errors.Is(err, windows.ERROR_ALREADY_EXISTS) || errors.Is(err, windows.ERROR_FILE_EXISTS) {
		err = fs.ErrExist
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}
