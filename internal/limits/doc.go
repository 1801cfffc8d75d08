// Package limits holds every number of the toolrpc contract (SPEC §2), each a
// named constant here and nowhere else, with its name in the contract.
// Descriptions in tools/list, error messages and the initialize result (Table)
// are generated from them. The code that cuts text to these numbers is
// package cut.
package limits
