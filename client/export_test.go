package client

import "time"

// ShortenWaits sets every wait of the package to d for one test and returns
// the function that restores them.
func ShortenWaits(d time.Duration) (restore func()) {
	c, s, e := cancelWait, shutdownWait, exitWait
	cancelWait, shutdownWait, exitWait = d, d, d
	return func() { cancelWait, shutdownWait, exitWait = c, s, e }
}
