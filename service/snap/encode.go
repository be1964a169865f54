// Encoding an object graph: the scan for identity and slice aliasing, then the values (Encode, Size).

package snap

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

type ptrKey struct {
	addr uintptr
	t    reflect.Type
}

// regionKey identifies a backing array by the end of a slice's capacity:
// every slice of one array (made without a capacity limit) ends there.
type regionKey struct {
	end uintptr
	t   reflect.Type // element type
}

type region struct {
	start unsafe.Pointer
	id    uint64
}

type encoder struct {
	buf     []byte
	types   map[reflect.Type]uint64
	ptrs    map[ptrKey]uint64
	maps    map[unsafe.Pointer]uint64
	regions map[regionKey]*region
	nreg    uint64
	// scanning state (first pass)
	scannedPtr map[ptrKey]bool
	scannedMap map[unsafe.Pointer]bool
	// sizing: count the bytes of raw data and strings instead of copying
	// them (Size)
	sizing bool
	size   int64
}

// Encode serialises the object graph reachable from root, a non-nil
// pointer.
func Encode(root any) (out []byte, err error) {
	return AppendEncode(nil, root)
}

// AppendEncode appends Encode(root) to dst: given room for it (the last
// encoding's length), the encoding is written in place, without the copies
// of a growing buffer.
func AppendEncode(dst []byte, root any) ([]byte, error) {
	e, err := encode(root, false, dst)
	if err != nil {
		return nil, err
	}
	return e.buf, nil
}

// Size is the length Encode(root) would have, computed without copying the
// data: the memory the graph's data takes (every backing array to its
// capacity, every string, every pointed-to value once), without the
// allocator's rounding and the maps' overhead.
func Size(root any) (int64, error) {
	e, err := encode(root, true, nil)
	if err != nil {
		return 0, err
	}
	return int64(len(e.buf)) + e.size, nil
}

func encode(root any, sizing bool, dst []byte) (e *encoder, err error) {
	rv := reflect.ValueOf(root)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, fmt.Errorf("snap: Encode of %T: want a non-nil pointer", root)
	}
	defer func() {
		if p := recover(); p != nil {
			e, err = nil, fmt.Errorf("snap: Encode of %T: %v", root, p)
		}
	}()
	e = &encoder{types: map[reflect.Type]uint64{}, ptrs: map[ptrKey]uint64{}, maps: map[unsafe.Pointer]uint64{},
		regions: map[regionKey]*region{}, scannedPtr: map[ptrKey]bool{}, scannedMap: map[unsafe.Pointer]bool{}, sizing: sizing}
	holder := reflect.New(rv.Type()).Elem()
	holder.Set(rv)
	if err := e.scan(holder); err != nil {
		return nil, err
	}
	e.buf = append(dst, header...)
	e.typeRef(rv.Type())
	if err := e.value(holder); err != nil {
		return nil, err
	}
	return e, nil
}

// scan is the first pass: it finds the extent of every backing array.
func (e *encoder) scan(v reflect.Value) error {
	t := v.Type()
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		k := ptrKey{v.Pointer(), t.Elem()}
		if e.scannedPtr[k] {
			return nil
		}
		e.scannedPtr[k] = true
		return e.scan(v.Elem())
	case reflect.Struct:
		for _, i := range fields(t) {
			if err := e.scan(field(v, i)); err != nil {
				return err
			}
		}
	case reflect.Array:
		if plain(t.Elem()) {
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := e.scan(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return e.scan(addressable(v.Elem()))
	case reflect.Map:
		if v.IsNil() || e.scannedMap[v.UnsafePointer()] {
			return nil
		}
		e.scannedMap[v.UnsafePointer()] = true
		for _, kv := range mapEntries(v) {
			if err := e.scan(addressable(kv[0])); err != nil {
				return err
			}
			if err := e.scan(addressable(kv[1])); err != nil {
				return err
			}
		}
	case reflect.Slice:
		size := t.Elem().Size()
		if v.IsNil() || v.Cap() == 0 || size == 0 {
			return nil
		}
		start := v.UnsafePointer()
		k := regionKey{uintptr(start) + uintptr(v.Cap())*size, t.Elem()}
		r := e.regions[k]
		n := uintptr(v.Cap()) // elements to scan from start
		if r != nil {
			if uintptr(start) >= uintptr(r.start) {
				return nil
			}
			n = (uintptr(r.start) - uintptr(start)) / size
			r.start = start
		} else {
			e.regions[k] = &region{start: start}
		}
		if plain(t.Elem()) {
			return nil
		}
		for i := uintptr(0); i < n; i++ {
			if err := e.scan(reflect.NewAt(t.Elem(), unsafe.Add(start, i*size)).Elem()); err != nil {
				return err
			}
		}
	case reflect.Chan, reflect.UnsafePointer:
		if !v.IsNil() {
			return fmt.Errorf("snap: a %s cannot be saved", t)
		}
	}
	return nil
}

func (e *encoder) uvarint(x uint64) { e.buf = binary.AppendUvarint(e.buf, x) }

func (e *encoder) typeRef(t reflect.Type) {
	if id, ok := e.types[t]; ok {
		e.uvarint(id)
		return
	}
	id := uint64(len(e.types)) + 1
	e.types[t] = id
	e.uvarint(id)
	name := typeName(t)
	e.uvarint(uint64(len(name)))
	e.buf = append(e.buf, name...)
	h := shape(t)
	e.buf = append(e.buf, h[:]...)
}

func (e *encoder) raw(p unsafe.Pointer, n uintptr) {
	if n == 0 {
		return
	}
	if e.sizing {
		e.size += int64(n)
		return
	}
	e.buf = append(e.buf, unsafe.Slice((*byte)(p), n)...)
}

// value writes the addressable value v.
func (e *encoder) value(v reflect.Value) error {
	t := v.Type()
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		e.raw(unsafe.Pointer(v.UnsafeAddr()), t.Size())
	case reflect.String:
		s := v.String()
		e.uvarint(uint64(len(s)))
		if e.sizing {
			e.size += int64(len(s))
		} else {
			e.buf = append(e.buf, s...)
		}
	case reflect.Array:
		if plain(t) {
			e.raw(unsafe.Pointer(v.UnsafeAddr()), t.Size())
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := e.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		if plain(t) {
			e.raw(unsafe.Pointer(v.UnsafeAddr()), t.Size())
			return nil
		}
		for _, i := range fields(t) {
			if err := e.value(field(v, i)); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			e.uvarint(0)
			return nil
		}
		k := ptrKey{v.Pointer(), t.Elem()}
		if id, ok := e.ptrs[k]; ok {
			e.uvarint(id)
			return nil
		}
		id := uint64(len(e.ptrs)) + 1
		e.ptrs[k] = id
		e.uvarint(id)
		return e.value(v.Elem())
	case reflect.Map:
		if v.IsNil() {
			e.uvarint(0)
			return nil
		}
		if id, ok := e.maps[v.UnsafePointer()]; ok {
			e.uvarint(id)
			return nil
		}
		id := uint64(len(e.maps)) + 1
		e.maps[v.UnsafePointer()] = id
		e.uvarint(id)
		e.uvarint(uint64(v.Len()))
		for _, kv := range mapEntries(v) {
			if err := e.value(addressable(kv[0])); err != nil {
				return err
			}
			if err := e.value(addressable(kv[1])); err != nil {
				return err
			}
		}
	case reflect.Slice:
		size := t.Elem().Size()
		switch {
		case v.IsNil():
			e.uvarint(0)
		case v.Cap() == 0 || size == 0:
			e.uvarint(1)
			e.uvarint(uint64(v.Len()))
			e.uvarint(uint64(v.Cap()))
		default:
			e.uvarint(2)
			start := v.UnsafePointer()
			k := regionKey{uintptr(start) + uintptr(v.Cap())*size, t.Elem()}
			r := e.regions[k]
			if r == nil {
				return fmt.Errorf("snap: slice of %s not found in the first pass", t.Elem())
			}
			if r.id != 0 {
				e.uvarint(r.id)
			} else {
				e.nreg++
				r.id = e.nreg
				e.uvarint(r.id)
				n := (k.end - uintptr(r.start)) / size
				e.uvarint(uint64(n))
				if plain(t.Elem()) {
					e.raw(r.start, n*size)
				} else {
					for i := uintptr(0); i < n; i++ {
						if err := e.value(reflect.NewAt(t.Elem(), unsafe.Add(r.start, i*size)).Elem()); err != nil {
							return err
						}
					}
				}
			}
			e.uvarint(uint64((uintptr(start) - uintptr(r.start)) / size))
			e.uvarint(uint64(v.Len()))
			e.uvarint(uint64(v.Cap()))
		}
	case reflect.Interface:
		if v.IsNil() {
			e.uvarint(0)
			return nil
		}
		d := v.Elem()
		e.uvarint(1)
		e.typeRef(d.Type())
		return e.value(addressable(d))
	case reflect.Func:
		if v.IsNil() {
			e.uvarint(0)
		} else {
			e.uvarint(1)
		}
	case reflect.Chan, reflect.UnsafePointer:
		if !v.IsNil() {
			return fmt.Errorf("snap: a %s cannot be saved", t)
		}
		e.uvarint(0)
	default:
		return fmt.Errorf("snap: values of kind %s cannot be saved", t.Kind())
	}
	return nil
}

// mapEntries are v's keys and values, ordered by key where the key's kind
// has an order (strings, numbers, booleans), so that the same state
// encodes to the same bytes; other keys in the map's own order.
func mapEntries(v reflect.Value) [][2]reflect.Value {
	var kvs [][2]reflect.Value
	for it := v.MapRange(); it.Next(); {
		kvs = append(kvs, [2]reflect.Value{it.Key(), it.Value()})
	}
	var by func(a, b reflect.Value) int
	switch v.Type().Key().Kind() {
	case reflect.String:
		by = func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		by = func(a, b reflect.Value) int { return cmp.Compare(a.Int(), b.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		by = func(a, b reflect.Value) int { return cmp.Compare(a.Uint(), b.Uint()) }
	case reflect.Float32, reflect.Float64:
		by = func(a, b reflect.Value) int { return cmp.Compare(a.Float(), b.Float()) }
	case reflect.Bool:
		by = func(a, b reflect.Value) int { return cmp.Compare(b2i(a.Bool()), b2i(b.Bool())) }
	default:
		return kvs
	}
	slices.SortFunc(kvs, func(a, b [2]reflect.Value) int { return by(a[0], b[0]) })
	return kvs
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
