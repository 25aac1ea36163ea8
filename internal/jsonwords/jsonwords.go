// Package jsonwords says in words what encoding/json refused in a user's file: where (the
// JSON path, or the byte) and what was expected, never a Go type name.
package jsonwords

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

var (
	numberType = reflect.TypeOf(json.Number(""))
	rawType    = reflect.TypeOf(json.RawMessage(nil))
)

// Expected names what a Go destination type accepts, as JSON: "an object", "a list", "a
// number", "a string", "true or false".
func Expected(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case numberType:
		return "a number"
	case rawType:
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}

// Found names a JSON value kind as encoding/json reports it ("array", "number 1.5", "bool").
func Found(value string) string {
	switch {
	case value == "array":
		return "a list"
	case value == "object":
		return "an object"
	case value == "string":
		return "a string"
	case value == "bool":
		return "true or false"
	case value == "null":
		return "null"
	case strings.HasPrefix(value, "number"):
		if v := strings.TrimSpace(strings.TrimPrefix(value, "number")); v != "" {
			return "the number " + v
		}
		return "a number"
	}
	return value
}

// Error is a decode failure located in the file.
type Error struct {
	Path   string // JSON path ("steps[3].append[1].bytes"), "" for the document itself
	Offset int64  // 0-based byte, or -1
	Msg    string
}

func (e *Error) Error() string {
	var where []string
	if e.Path != "" {
		where = append(where, e.Path)
	}
	if e.Offset >= 0 {
		where = append(where, fmt.Sprintf("byte %d", e.Offset))
	}
	if len(where) == 0 {
		return e.Msg
	}
	return strings.Join(where, ", ") + ": " + e.Msg
}

// Describe turns an encoding/json decode error into an *Error; prefix is the JSON path of the
// value decoded ("" for the whole document). Errors not from encoding/json come back as they
// are.
func Describe(err error, prefix string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syn):
		// Offset counts the bytes read, the offending one included.
		return &Error{Path: prefix, Offset: max(syn.Offset-1, 0), Msg: "not valid JSON: " + syn.Error()}
	case errors.As(err, &typ):
		path := prefix
		if typ.Field != "" {
			if path != "" {
				path += "."
			}
			path += typ.Field
		}
		what := "expected " + Expected(typ.Type) + ", found " + Found(typ.Value)
		if path == "" {
			what = "the file must hold " + Expected(typ.Type) + ", not " + Found(typ.Value)
		}
		return &Error{Path: path, Offset: -1, Msg: what}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Path: prefix, Offset: -1, Msg: "the JSON ends before its value does (a truncated file?)"}
	case errors.Is(err, io.EOF):
		return &Error{Path: prefix, Offset: -1, Msg: "no JSON value: the input is empty"}
	}
	// DisallowUnknownFields: `json: unknown field "x"`.
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &Error{Path: prefix, Offset: -1, Msg: "unknown key " + f}
	}
	return err
}
