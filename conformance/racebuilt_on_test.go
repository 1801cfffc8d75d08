//go:build race

package conformance

// raceBuilt is true: the suite (and so the server it runs) is race-built.
const raceBuilt = true
