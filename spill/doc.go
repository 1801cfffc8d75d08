// Package spill keeps a session's scratch directory: spill files of cut tool
// output are written there, the directory exists only once something was
// spilled, and it is removed at shutdown or swept by the next server once no
// live process holds its lock.
package spill
