package wire

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schemas are generated from the wire types with jsonschema-go, so a schema
// cannot disagree with the decoder or the encoder: an object type admits only
// its members (the decoder refuses unknown fields: additionalProperties is
// false), a member without omitempty is required, a pointer member is
// nullable unless required. What a Go type cannot say (ranges from limits,
// enums, patterns) each tool adds in its adjust function.

// Props is the properties of a generated object schema, by member name.
type Props = map[string]*jsonschema.Schema

// typeSchemas are the wire types whose schema is not their Go shape, and the
// named types a client generator declares once (their title is the Go name).
func typeSchemas() map[reflect.Type]*jsonschema.Schema {
	ts := map[reflect.Type]*jsonschema.Schema{
		// Raw members (edit's ops, bash's workDoneToken) are described by
		// their tool's adjust.
		reflect.TypeFor[json.RawMessage](): {},
		reflect.TypeFor[Root](): {Title: "Root", Description: "the kind of root a path lies in (SPEC §3)",
			Type: "string", Enum: []any{string(Workspace), string(Scratch), string(External)}},
	}
	titled[StreamInfo](ts, "what a bash stream produced and what the result kept of it")
	titled[GrepMatch](ts, "")
	content := titled[GrepContentResult](ts, `tools/grep with outputMode "content"`)
	files := titled[GrepFilesResult](ts, `tools/grep with outputMode "filesWithMatches" (the default)`)
	counts := titled[GrepCountResult](ts, `tools/grep with outputMode "count"`)
	ts[reflect.TypeFor[GrepResult]()] = &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{content, files, counts},
		Description: "the variant follows params.outputMode"}
	return ts
}

// titled records the schema of T in ts under T's name as title.
func titled[T any](ts map[reflect.Type]*jsonschema.Schema, doc string) *jsonschema.Schema {
	s := mustFor[T](ts)
	nonNullArrays(s)
	s.Title, s.Description = reflect.TypeFor[T]().Name(), doc
	ts[reflect.TypeFor[T]()] = s
	return s
}

// For is T's schema as jsonschema-go infers it, with wire's type schemas;
// a type it cannot describe is a programming error.
func For[T any]() *jsonschema.Schema { return mustFor[T](typeSchemas()) }

// mustFor infers T's schema; a type jsonschema-go cannot describe is a
// programming error.
func mustFor[T any](ts map[reflect.Type]*jsonschema.Schema) *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: ts})
	if err != nil {
		panic(fmt.Sprintf("wire: schema of %T: %v", *new(T), err))
	}
	return s
}

// InputSchema is the JSON Schema of the params type T, with adjust's
// additions (adjust may be nil).
func InputSchema[T any](adjust func(p Props)) json.RawMessage {
	s := mustFor[T](typeSchemas())
	for _, name := range s.Required { // the decoder refuses a required member's null
		if p := s.Properties[name]; p != nil && len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	if adjust != nil {
		adjust(s.Properties)
	}
	return mustMarshal(s)
}

// OutputSchema is the JSON Schema of a tool's result type T or of the error
// object (titled "ErrorObject"): an MCP isError result carries the error
// object as structuredContent, and MCP clients validate it against
// outputSchema. Both faces list the same outputSchema. adjust (may be nil)
// describes what T's Go shape cannot, as InputSchema's does.
func OutputSchema[T any](adjust func(p Props)) json.RawMessage {
	res := mustFor[T](typeSchemas())
	res.Title = reflect.TypeFor[T]().Name()
	nonNullArrays(res)
	if adjust != nil {
		adjust(res.Properties)
	}
	return mustMarshal(&jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{res, errorObjectSchema()}})
}

// nonNullArrays makes every array in s non-nullable: results always encode a
// slice as an array ([] when empty), never as null.
func nonNullArrays(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" && s.Types[1] == "array" {
		s.Type, s.Types = "array", nil
	}
	nonNullArrays(s.Items)
	for _, p := range s.Properties {
		nonNullArrays(p)
	}
	for _, a := range s.AnyOf {
		nonNullArrays(a)
	}
}

// errorObjectSchema is the schema of ErrorObject: data, when present,
// holds the SPEC §10 kind as code beside what the failure adds.
func errorObjectSchema() *jsonschema.Schema {
	s := mustFor[ErrorObject](typeSchemas())
	s.Title = "ErrorObject"
	data := mustFor[ErrorData](nil)
	data.AdditionalProperties = nil
	data.Properties["code"].Enum = Enum(Kinds())
	s.Properties["data"] = data
	return s
}

// Enum returns vs as enum values.
func Enum[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func mustMarshal(s *jsonschema.Schema) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("wire: marshal schema: %v", err))
	}
	return b
}

// Adjusters shared by the tools.

// Range sets p's inclusive range; max 0 means none.
func Range(p *jsonschema.Schema, min, max int) *jsonschema.Schema {
	p.Minimum = Ptr(float64(min))
	if max > 0 {
		p.Maximum = Ptr(float64(max))
	}
	return p
}

// Default sets p's default value.
func Default(p *jsonschema.Schema, v any) *jsonschema.Schema {
	p.Default, _ = json.Marshal(v)
	return p
}
