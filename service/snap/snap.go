package snap

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
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
	e, err := encode(root, false)
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
	e, err := encode(root, true)
	if err != nil {
		return 0, err
	}
	return int64(len(e.buf)) + e.size, nil
}

func encode(root any, sizing bool) (e *encoder, err error) {
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
	e.buf = append(e.buf, header...)
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
		it := v.MapRange()
		for it.Next() {
			if err := e.scan(addressable(it.Key())); err != nil {
				return err
			}
			if err := e.scan(addressable(it.Value())); err != nil {
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
		it := v.MapRange()
		for it.Next() {
			if err := e.value(addressable(it.Key())); err != nil {
				return err
			}
			if err := e.value(addressable(it.Value())); err != nil {
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

// ErrCorrupt is wrapped by Decode errors about the encoding itself.
var ErrCorrupt = errors.New("snap: corrupt or foreign encoding")

type decoder struct {
	buf      []byte
	off      int
	reg      map[string]reflect.Type
	types    []reflect.Type
	ptrs     []reflect.Value
	claimed  map[uintptr]bool
	maps     []reflect.Value
	regions  []reflect.Value
	rootType reflect.Type
}

// Decode writes the graph encoded in data into root, a pointer to a freshly
// built value of the encoded type; on error root is left in an undefined
// state and must be discarded.
func Decode(data []byte, root any) (err error) {
	rv := reflect.ValueOf(root)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("snap: Decode into %T: want a non-nil pointer", root)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}()
	if len(data) < len(header) || string(data[:len(header)]) != header {
		return fmt.Errorf("%w: header is not %q", ErrCorrupt, header)
	}
	d := &decoder{buf: data, off: len(header), reg: map[string]reflect.Type{}, claimed: map[uintptr]bool{}}
	d.collect(rv, map[any]bool{})
	t, err := d.typeRef()
	if err != nil {
		return err
	}
	if t != rv.Type() {
		return fmt.Errorf("snap: encoded %s, decoding into %s", t, rv.Type())
	}
	holder := reflect.New(rv.Type()).Elem()
	holder.Set(rv)
	if err := d.value(holder); err != nil {
		return err
	}
	if holder.Pointer() != rv.Pointer() {
		return fmt.Errorf("snap: the root was not decoded in place")
	}
	if d.off != len(d.buf) {
		return fmt.Errorf("%w: %d bytes after the value", ErrCorrupt, len(d.buf)-d.off)
	}
	return nil
}

// collect registers every type reachable from v, by value (dynamic types in
// interfaces) and statically (field and element types): interface values in
// the encoding are decoded as one of these.
func (d *decoder) collect(v reflect.Value, seen map[any]bool) {
	d.collectType(v.Type())
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[ptrKey{v.Pointer(), v.Type()}] {
			return
		}
		seen[ptrKey{v.Pointer(), v.Type()}] = true
		d.collect(v.Elem(), seen)
	case reflect.Struct:
		for _, i := range fields(v.Type()) {
			d.collect(field(v, i), seen)
		}
	case reflect.Interface:
		if !v.IsNil() {
			d.collect(addressable(v.Elem()), seen)
		}
	case reflect.Slice, reflect.Array:
		if plain(v.Type().Elem()) {
			return
		}
		if v.Kind() == reflect.Slice {
			if v.IsNil() || seen[regionKey{uintptr(v.UnsafePointer()), v.Type()}] {
				return
			}
			seen[regionKey{uintptr(v.UnsafePointer()), v.Type()}] = true
		}
		for i := 0; i < v.Len(); i++ {
			d.collect(v.Index(i), seen)
		}
	case reflect.Map:
		if v.IsNil() || seen[v.UnsafePointer()] {
			return
		}
		seen[v.UnsafePointer()] = true
		it := v.MapRange()
		for it.Next() {
			d.collect(addressable(it.Key()), seen)
			d.collect(addressable(it.Value()), seen)
		}
	}
}

func (d *decoder) collectType(t reflect.Type) {
	name := typeName(t)
	if _, ok := d.reg[name]; ok {
		return
	}
	d.reg[name] = t
	if reflect.PointerTo(t).Implements(declarerType) {
		for _, x := range reflect.New(t).Interface().(Declarer).SnapshotTypes() {
			if x != nil {
				d.collectType(reflect.TypeOf(x))
			}
		}
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		d.collectType(t.Elem())
	case reflect.Map:
		d.collectType(t.Key())
		d.collectType(t.Elem())
	case reflect.Struct:
		for _, i := range fields(t) {
			d.collectType(t.Field(i).Type)
		}
	}
}

func (d *decoder) uvarint() uint64 {
	x, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		panic("truncated varint")
	}
	d.off += n
	return x
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.buf)-d.off) {
		panic("truncated data")
	}
	b := d.buf[d.off : d.off+int(n)]
	d.off += int(n)
	return b
}

func (d *decoder) typeRef() (reflect.Type, error) {
	id := d.uvarint()
	if id >= 1 && id <= uint64(len(d.types)) {
		return d.types[id-1], nil
	}
	if id != uint64(len(d.types))+1 {
		return nil, fmt.Errorf("%w: type reference %d", ErrCorrupt, id)
	}
	name := string(d.bytes(d.uvarint()))
	var h [32]byte
	copy(h[:], d.bytes(32))
	t, ok := d.reg[name]
	if !ok {
		return nil, fmt.Errorf("snap: type %s is not reachable from the fresh value", name)
	}
	if shape(t) != h {
		return nil, fmt.Errorf("snap: type %s has changed since the encoding", name)
	}
	d.types = append(d.types, t)
	return t, nil
}

func (d *decoder) raw(p unsafe.Pointer, n uintptr) {
	if n == 0 {
		return
	}
	copy(unsafe.Slice((*byte)(p), n), d.bytes(uint64(n)))
}

func (d *decoder) count(what string) int {
	n := d.uvarint()
	if n > uint64(len(d.buf)) && n > 1<<20 {
		panic(fmt.Sprintf("%s %d exceeds the encoding", what, n))
	}
	return int(n)
}

// value reads into the addressable, settable v, reusing what v holds where
// it can (pointers of the fresh value, so that closures made by its
// constructor see the decoded state).
func (d *decoder) value(v reflect.Value) error {
	t := v.Type()
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		d.raw(unsafe.Pointer(v.UnsafeAddr()), t.Size())
	case reflect.String:
		v.SetString(string(d.bytes(d.uvarint())))
	case reflect.Array:
		if plain(t) {
			d.raw(unsafe.Pointer(v.UnsafeAddr()), t.Size())
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := d.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		if plain(t) {
			d.raw(unsafe.Pointer(v.UnsafeAddr()), t.Size())
			return nil
		}
		fs := fields(t)
		for k, i := 0, 0; i < t.NumField(); i++ {
			if k < len(fs) && fs[k] == i {
				k++
				if err := d.value(field(v, i)); err != nil {
					return err
				}
			} else {
				field(v, i).SetZero() // transient
			}
		}
	case reflect.Pointer:
		id := d.uvarint()
		switch {
		case id == 0:
			v.SetZero()
		case id <= uint64(len(d.ptrs)):
			p := d.ptrs[id-1]
			if p.Type() != t {
				return fmt.Errorf("%w: pointer %d is a %s, wanted %s", ErrCorrupt, id, p.Type(), t)
			}
			v.Set(p)
		case id == uint64(len(d.ptrs))+1:
			p := reflect.New(t).Elem() // a copy of the pointer: the fresh pointee
			p.Set(v)
			if v.IsNil() || d.claimed[v.Pointer()] {
				p = reflect.New(t.Elem())
				if p.Type() != t { // a named pointer type
					q := reflect.New(t).Elem()
					q.Set(p.Convert(t))
					p = q
				}
			}
			d.claimed[p.Pointer()] = true
			d.ptrs = append(d.ptrs, p)
			v.Set(p)
			return d.value(p.Elem())
		default:
			return fmt.Errorf("%w: pointer reference %d", ErrCorrupt, id)
		}
	case reflect.Map:
		id := d.uvarint()
		switch {
		case id == 0:
			v.SetZero()
		case id <= uint64(len(d.maps)):
			m := d.maps[id-1]
			if m.Type() != t {
				return fmt.Errorf("%w: map %d is a %s, wanted %s", ErrCorrupt, id, m.Type(), t)
			}
			v.Set(m)
		case id == uint64(len(d.maps))+1:
			n := d.count("map length")
			m := reflect.MakeMapWithSize(t, n)
			d.maps = append(d.maps, m)
			v.Set(m)
			for i := 0; i < n; i++ {
				k := reflect.New(t.Key()).Elem()
				if err := d.value(k); err != nil {
					return err
				}
				x := reflect.New(t.Elem()).Elem()
				if err := d.value(x); err != nil {
					return err
				}
				m.SetMapIndex(k, x)
			}
		default:
			return fmt.Errorf("%w: map reference %d", ErrCorrupt, id)
		}
	case reflect.Slice:
		switch tag := d.uvarint(); tag {
		case 0:
			v.SetZero()
		case 1:
			n, c := d.count("slice length"), d.count("slice capacity")
			if n > c {
				return fmt.Errorf("%w: slice length %d > capacity %d", ErrCorrupt, n, c)
			}
			if t.Elem().Size() != 0 && c != 0 {
				return fmt.Errorf("%w: empty slice of capacity %d", ErrCorrupt, c)
			}
			v.Set(reflect.MakeSlice(t, n, c))
		case 2:
			id := d.uvarint()
			var arr reflect.Value
			switch {
			case id >= 1 && id <= uint64(len(d.regions)):
				arr = d.regions[id-1]
				if arr.Type() != t {
					return fmt.Errorf("%w: array %d holds %s, wanted %s", ErrCorrupt, id, arr.Type(), t)
				}
			case id == uint64(len(d.regions))+1:
				n := d.count("array length")
				size := t.Elem().Size()
				if plain(t.Elem()) && uint64(n)*uint64(size) > uint64(len(d.buf)-d.off) {
					return fmt.Errorf("%w: array of %d exceeds the encoding", ErrCorrupt, n)
				}
				arr = reflect.MakeSlice(t, n, n)
				d.regions = append(d.regions, arr)
				if plain(t.Elem()) {
					if n > 0 {
						d.raw(arr.UnsafePointer(), uintptr(n)*size)
					}
				} else {
					for i := 0; i < n; i++ {
						if err := d.value(arr.Index(i)); err != nil {
							return err
						}
					}
				}
			default:
				return fmt.Errorf("%w: array reference %d", ErrCorrupt, id)
			}
			off, n, c := d.count("offset"), d.count("length"), d.count("capacity")
			if n > c || off+c > arr.Len() {
				return fmt.Errorf("%w: slice [%d:%d:%d] of an array of %d", ErrCorrupt, off, off+n, off+c, arr.Len())
			}
			v.Set(arr.Slice3(off, off+n, off+c))
		default:
			return fmt.Errorf("%w: slice tag %d", ErrCorrupt, tag)
		}
	case reflect.Interface:
		if d.uvarint() == 0 {
			v.SetZero()
			return nil
		}
		dt, err := d.typeRef()
		if err != nil {
			return err
		}
		if !dt.AssignableTo(t) {
			return fmt.Errorf("snap: %s does not implement %s", dt, t)
		}
		nv := reflect.New(dt).Elem()
		if !v.IsNil() && v.Elem().Type() == dt {
			nv.Set(v.Elem())
		}
		if err := d.value(nv); err != nil {
			return err
		}
		v.Set(nv)
	case reflect.Func:
		switch d.uvarint() {
		case 0:
			v.SetZero()
		default:
			if v.IsNil() {
				return fmt.Errorf("snap: a %s was saved, the fresh value has none to keep", t)
			}
		}
	case reflect.Chan, reflect.UnsafePointer:
		if d.uvarint() != 0 {
			return fmt.Errorf("%w: a %s", ErrCorrupt, t)
		}
		v.SetZero()
	default:
		return fmt.Errorf("snap: values of kind %s cannot be restored", t.Kind())
	}
	return nil
}
