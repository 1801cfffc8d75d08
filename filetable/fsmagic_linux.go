//go:build linux && !toolrpc_portable

package filetable

import "golang.org/x/sys/unix"

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
