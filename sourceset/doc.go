// Package sourceset records which lines of which file version a Read or Grep
// result showed whole, so an edit can touch only lines the agent has seen.
package sourceset
