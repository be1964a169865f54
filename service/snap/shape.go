// Type shapes: the fields encoded (transient ones left out), the shape of a type graph, declared types (Declarer) and Fingerprint.

package snap

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Declarer is implemented by a type whose interface fields may come to hold
// values of types that a freshly built value does not reach (a kernel
// replaced by a fitted one, say). SnapshotTypes returns one value of each
// such type; its result must not depend on the receiver, which is a zero
// value. As with encoding/gob's Register, Decode then finds those types by
// name, and Fingerprint covers their shapes.
type Declarer interface {
	SnapshotTypes() []any
}

var declarerType = reflect.TypeFor[Declarer]()

// fieldCache holds the encoded fields of each struct type.
var fieldCache sync.Map // reflect.Type → []int

// fields returns the indices of the fields of struct type t that are
// encoded: all but the transient ones, tagged `snap:"-"` (not encoded, not
// in the struct's shape nor the Fingerprint, not counted by Size, zero
// after Decode).
func fields(t reflect.Type) []int {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]int)
	}
	fs := make([]int, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("snap") != "-" {
			fs = append(fs, i)
		}
	}
	fieldCache.Store(t, fs)
	return fs
}

// shapes caches the shape hash of each type.
var shapes sync.Map // reflect.Type → [32]byte

// shape is a hash of t's structure: kinds, names, field names and the
// shapes of everything t contains, recursively (a named type is expanded
// once, then referred to by name).
func shape(t reflect.Type) [32]byte {
	if h, ok := shapes.Load(t); ok {
		return h.([32]byte)
	}
	var b strings.Builder
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if t.Name() != "" {
			b.WriteString(t.PkgPath() + "." + t.Name())
			if seen[t] {
				return
			}
			seen[t] = true
			b.WriteByte('=')
		}
		switch t.Kind() {
		case reflect.Struct:
			b.WriteString("struct{")
			for _, i := range fields(t) {
				f := t.Field(i)
				b.WriteString(f.Name + " ")
				walk(f.Type)
				b.WriteByte(';')
			}
			b.WriteByte('}')
		case reflect.Pointer:
			b.WriteByte('*')
			walk(t.Elem())
		case reflect.Slice:
			b.WriteString("[]")
			walk(t.Elem())
		case reflect.Array:
			b.WriteString("[" + strconv.Itoa(t.Len()) + "]")
			walk(t.Elem())
		case reflect.Map:
			b.WriteString("map[")
			walk(t.Key())
			b.WriteByte(']')
			walk(t.Elem())
		case reflect.Interface, reflect.Func, reflect.Chan:
			b.WriteString(t.Kind().String() + "(" + t.String() + ")")
		default:
			b.WriteString(t.Kind().String())
		}
	}
	walk(t)
	h := sha256.Sum256([]byte(b.String()))
	shapes.Store(t, h)
	return h
}

func typeName(t reflect.Type) string { return t.String() + "@" + t.PkgPath() }

// Fingerprint is a hash of the shapes of the types reachable from root —
// its static types (fields, elements) and the dynamic types of the
// interface values it holds — and of the encoding's header (format
// version, architecture). Decode accepts an encoding only into a value whose
// types have the shapes the encoding names, so two builds whose fresh
// values have one fingerprint read each other's encodings: a snapshot can
// be versioned by the fingerprint of a freshly built value instead of by
// the build that took it.
func Fingerprint(root any) (fp [32]byte, err error) {
	rv := reflect.ValueOf(root)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fp, fmt.Errorf("snap: Fingerprint of %T: want a non-nil pointer", root)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("snap: Fingerprint of %T: %v", root, p)
		}
	}()
	d := &decoder{reg: map[string]reflect.Type{}}
	d.collect(rv, map[any]bool{})
	names := make([]string, 0, len(d.reg))
	for n := range d.reg {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	h.Write([]byte(header))
	for _, n := range names {
		sh := shape(d.reg[n])
		h.Write([]byte(n))
		h.Write([]byte{0})
		h.Write(sh[:])
	}
	copy(fp[:], h.Sum(nil))
	return fp, nil
}
