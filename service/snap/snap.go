// The format's header and the reflection helpers shared by encoding, decoding and shapes.

package snap

import (
	"reflect"
	"runtime"
	"strconv"
	"unsafe"
)

// magic starts every encoding; the version after it changes with the format.
const (
	magic   = "cbsnap"
	version = 1
)

// header names what the raw memory copies depend on: the architecture (word
// size and byte order).
var header = magic + strconv.Itoa(version) + "/" + runtime.GOARCH

// unrestricted returns v without the read-only flag of an unexported field
// (v must be addressable).
func unrestricted(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// field returns field i of the addressable struct v, readable and settable.
func field(v reflect.Value, i int) reflect.Value { return unrestricted(v.Field(i)) }

// addressable returns an addressable copy of v when v is not addressable
// (map entries, interface contents): a shallow copy, so the pointers,
// slices and maps it holds are the originals.
func addressable(v reflect.Value) reflect.Value {
	if v.CanAddr() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

// plain reports whether values of t are plain memory (no pointers of any
// kind): such slices and arrays are copied as raw bytes.
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		fs := fields(t)
		if len(fs) != t.NumField() { // a transient field is not copied
			return false
		}
		for _, i := range fs {
			if !plain(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
