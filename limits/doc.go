// Package limits holds every number of the toolrpc contract (SPEC §2), each a
// named constant here and nowhere else, with its name in the contract.
// Descriptions in tools/list, error messages and the initialize result (Table)
// are generated from them. The code that cuts text to these numbers is
// package cut.
//
// Its API is toolrpc's own: it serves the server and may change between
// minor versions. The stable surfaces are the wire protocol (docs/protocol.md)
// and the packages client, wire and lspframe.
package limits
