package roots

import "syscall"

var syscallENOTDIR error = syscall.ENOTDIR
