package mcpserve

import (
	"encoding/json"
	"fmt"

	"github.com/toolrpc/toolrpc/rpc"
)

// Output schemas: each tool's outputSchema admits the LSP-mode result object
// and the LSP-mode error object, because an isError result carries the error
// as structuredContent and the official TypeScript client validates
// structuredContent against outputSchema on error results too.
const (
	streamInfoSchema = `{"type":"object","required":["bytes","lines","truncated","omittedBytes","omittedLines","chunks"],"properties":{` +
		`"bytes":{"type":"integer"},"lines":{"type":"integer"},"truncated":{"type":"boolean"},` +
		`"omittedBytes":{"type":"integer"},"omittedLines":{"type":"integer"},"spill":{"type":"string"},"chunks":{"type":"integer"}}}`

	bashResultSchema = `{"type":"object","required":["exitCode","stdout","stderr","truncated","stdoutInfo","stderrInfo","durationMs"],"properties":{` +
		`"exitCode":{"type":["integer","null"]},"signal":{"type":"string"},"stdout":{"type":"string"},"stderr":{"type":"string"},` +
		`"truncated":{"type":"boolean"},"stdoutInfo":` + streamInfoSchema + `,"stderrInfo":` + streamInfoSchema + `,"durationMs":{"type":"integer"}}}`

	readResultSchema = `{"type":"object","required":["path","root","content","tag","offset","lineCount","totalLines","fileBytes","truncated"],"properties":{` +
		`"path":{"type":"string"},"root":{"enum":["workspace","scratch","external"]},"content":{"type":"string"},"tag":{"type":"string"},` +
		`"offset":{"type":"integer"},"lineCount":{"type":"integer"},"totalLines":{"type":"integer"},"fileBytes":{"type":"integer"},` +
		`"truncated":{"type":"boolean"},"clippedLines":{"type":"array","items":{"type":"integer"}},"notice":{"type":"string"}}}`

	grepResultSchema = `{"type":"object","anyOf":[` +
		`{"required":["matches","tags","count","files","truncated"],"properties":{` +
		`"matches":{"type":"array","items":{"type":"object","required":["path","line","text"],"properties":{` +
		`"path":{"type":"string"},"line":{"type":"integer"},"text":{"type":"string"},"context":{"const":true}}}},` +
		`"tags":{"type":"object","additionalProperties":{"type":"string"}},"count":{"type":"integer"},"files":{"type":"integer"},` +
		`"truncated":{"type":"boolean"},"notice":{"type":"string"}}},` +
		`{"required":["files","count","truncated"],"properties":{"files":{"type":"array","items":{"type":"string"}},` +
		`"count":{"type":"integer"},"truncated":{"type":"boolean"},"notice":{"type":"string"}}},` +
		`{"required":["counts","count","truncated"],"properties":{"counts":{"type":"array","items":{"type":"object","required":["path","count"],"properties":{` +
		`"path":{"type":"string"},"count":{"type":"integer"}}}},"count":{"type":"integer"},"truncated":{"type":"boolean"},"notice":{"type":"string"}}}]}`

	globResultSchema = `{"type":"object","required":["matches","count","truncated"],"properties":{` +
		`"matches":{"type":"array","items":{"type":"string"}},"count":{"type":"integer"},"truncated":{"type":"boolean"},"notice":{"type":"string"}}}`

	editResultSchema = `{"type":"object","required":["path","tag","content","totalLines"],"properties":{` +
		`"path":{"type":"string"},"tag":{"type":"string"},"content":{"type":"string"},"totalLines":{"type":"integer"},` +
		`"clippedLines":{"type":"array","items":{"type":"integer"}},"notice":{"type":"string"}}}`

	writeResultSchema = `{"type":"object","required":["path","root","tag","fileBytes","totalLines","created"],"properties":{` +
		`"path":{"type":"string"},"root":{"enum":["workspace","scratch","external"]},"tag":{"type":"string"},` +
		`"fileBytes":{"type":"integer"},"totalLines":{"type":"integer"},"created":{"type":"boolean"},"notice":{"type":"string"}}}`
)

// errorKinds are the data.code strings of SPEC §10.
var errorKinds = []string{rpc.InvalidArgument, rpc.Cancelled, rpc.BinaryContent, rpc.NotFound, rpc.IsDirectory,
	rpc.PermissionDenied, rpc.Timeout, rpc.StaleTag, rpc.LineNotVisible, rpc.IOError}

// errorSchema is the schema of the LSP-mode error object; data.code is a
// SPEC §10 string.
func errorSchema() string {
	kinds, _ := json.Marshal(errorKinds)
	return `{"type":"object","required":["code","message"],"properties":{"code":{"type":"integer"},"message":{"type":"string"},` +
		`"data":{"type":"object","required":["code"],"properties":{"code":{"enum":` + string(kinds) + `}}}}}`
}

// outputSchema is a tool's outputSchema: its result or the error object.
func outputSchema(result string) json.RawMessage {
	s := fmt.Sprintf(`{"type":"object","anyOf":[%s,%s]}`, result, errorSchema())
	if !json.Valid([]byte(s)) {
		panic("mcpserve: invalid output schema " + s)
	}
	return json.RawMessage(s)
}
