package wire

// Ptr returns a pointer to v, for the optional members of params:
// wire.ReadParams{Path: "a.go", Offset: wire.Ptr[int64](40)}.
func Ptr[T any](v T) *T { return &v }
