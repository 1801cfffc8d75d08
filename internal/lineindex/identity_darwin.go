package lineindex

import (
	"syscall"
	"time"
)

func ctimeOf(st *syscall.Stat_t) int64 { return time.Unix(st.Ctimespec.Unix()).UnixNano() }
