package walk

import "syscall"

var syscallENOTDIR error = syscall.ENOTDIR
