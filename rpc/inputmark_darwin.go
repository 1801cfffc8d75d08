package rpc

// fionread is FIONREAD on macOS (_IOR('f', 127, int)); x/sys/unix does not
// name it for darwin.
const fionread = 0x4004667f
