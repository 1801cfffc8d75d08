//go:build unix && !linux

package shellsession

// fionread is FIONREAD on the BSDs and macOS (_IOR('f', 127, int)).
const fionread = 0x4004667f
