// Decoding an object graph into a fresh value (Decode): the type table, then the values.

package snap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

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
