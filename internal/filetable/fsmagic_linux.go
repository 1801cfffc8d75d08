//go:build linux && !toolrpc_portable

package filetable

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// unreliableFS maps the statfs magic numbers of file systems whose inotify
// events miss changes (made by other clients, or in lower layers) to a name
// for the log.
var unreliableFS = map[int64]string{
	0x6969:     "nfs",
	0x517b:     "smb",
	0xff534d42: "cifs",
	0xfe534d42: "smb2",
	0x65735546: "fuse",
	0x65735543: "fusectl",
	0x01021997: "9p",
	0x794c7630: "overlay",
	0x00c36400: "ceph",
	0x5346414f: "afs",
	0x6b414653: "kafs",
	0x73757245: "coda",
	0x47504653: "gpfs",
	0x013111a8: "ibrix",
	0x0bd00bd0: "lustre",
	0x20030528: "orangefs",
}

// fsUnreliable returns the name of dir's file system when its events cannot
// be trusted, else "". A directory statfs cannot answer for is unreliable.
func fsUnreliable(dir string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return "unknown (statfs: " + err.Error() + ")"
	}
	return unreliableFS[int64(st.Type)]
}

// mountsBelow returns the mount points strictly below root, from
// /proc/self/mountinfo; ok is false when that cannot be read. A directory
// that is not a mount point lies on its parent's file system, so a walk
// of root asks fsUnreliable only of root and of these.
func mountsBelow(root string) (mounts map[string]bool, ok bool) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, false
	}
	mounts = map[string]bool{}
	for line := range strings.Lines(string(data)) {
		// id parent maj:min root mountpoint opts ... - fstype source superopts
		fields := strings.Fields(line)
		if len(fields) < 5 {
			return nil, false
		}
		if mp := unescapeMount(fields[4]); strings.HasPrefix(mp, root+"/") {
			mounts[mp] = true
		}
	}
	return mounts, true
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, \011,
// \012, \134).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
