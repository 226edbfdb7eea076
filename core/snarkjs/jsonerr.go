package snarkjs

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// jsonError says what the JSON decoder refused in the document's terms,
// never Go's ("json: cannot unmarshal number into Go struct field
// Proof.pi_a of type []string" becomes "pi_a: want an array of strings,
// got a number").
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		where := "the document"
		if te.Field != "" {
			where = te.Field
		}
		return fmt.Errorf("%s: want %s, got %s", where, typeWords(te.Type), article(te.Value))
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON at byte %d: %w", se.Offset, err)
	}
	return err
}

// typeWords names what a JSON value must be to decode into t.
func typeWords(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array of " + plural(typeWords(t.Elem()))
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return typeWords(t.Elem())
	}
	return "a number"
}

// plural turns "a string" into "strings", "an array of x" into "arrays of x".
func plural(s string) string {
	for _, a := range []string{"an ", "a "} {
		if len(s) > len(a) && s[:len(a)] == a {
			s = s[len(a):]
			break
		}
	}
	if len(s) > 6 && s[:6] == "array " {
		return "arrays " + s[6:]
	}
	return s + "s"
}

// article puts "a" or "an" before a JSON type name ("number", "object").
func article(v string) string {
	switch v {
	case "object", "array":
		return "an " + v
	case "bool":
		return "a boolean"
	}
	return "a " + v
}
