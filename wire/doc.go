// Package wire holds the one definition of every tool's params and result as
// they travel: the Go types both faces (LSP-style JSON-RPC and MCP) encode
// results from and decode params into, the Go client decodes results into,
// and tools/list's inputSchema and outputSchema are generated from. It also
// holds the stable data.code strings of SPEC §10, and generates each type's
// JSON Schema (InputSchema, OutputSchema) with jsonschema-go.
//
// wire imports no package of the server (only the standard library and
// jsonschema-go), so the Go client can use it without pulling in the server.
//
// # Adding a field
//
// The engines fill these types themselves (search, page, lineedit, shell,
// process), and methods' adapters add only what the path's resolution knows
// (root) or the policy reports (bash's sandbox), so a new result field is one
// edit here (plus the engine that fills it and, if the MCP text block should
// show it, mcpserve's renderer); the schemas and
// the TypeScript client's types follow from the type, and docs/protocol.md
// (SPEC §N is its section §N) documents the field for host authors.
package wire
