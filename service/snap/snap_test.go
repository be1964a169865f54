package snap

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

type shape2 interface{ area() float64 }

type rect struct{ w, h float64 }

func (r *rect) area() float64 { return r.w * r.h }

type node struct {
	name  string
	next  *node
	vals  []float64
	view  []float64 // aliases vals
	rows  [][]float64
	m     map[string]*node
	sh    shape2
	rng   *rand.Rand
	scale func() float64 // closure over the node: kept from the fresh value
	arr   [3]int
	none  []int
	empty []int
}

func build(seed uint64) *node {
	n := &node{name: "a", rng: rand.New(rand.NewPCG(seed, 2)), sh: &rect{1, 2}, m: map[string]*node{}, empty: []int{}}
	n.scale = func() float64 { return float64(len(n.vals)) }
	n.next = &node{name: "b", next: n} // a cycle
	n.m["self"] = n
	n.m["b"] = n.next
	return n
}

// grow mutates the node the way an agent's state grows.
func grow(n *node, k int) {
	for i := 0; i < k; i++ {
		n.vals = append(n.vals, n.rng.Float64())
	}
	n.view = n.vals[1:3]
	buf := make([]float64, 6)
	n.rows = [][]float64{buf[0:2], buf[2:4], buf[4:6]}
	n.arr[1] = k
	n.sh.(*rect).w = float64(k)
}

func TestRoundTrip(t *testing.T) {
	orig := build(1)
	grow(orig, 5)
	data, err := Encode(orig)
	if err != nil {
		t.Fatal(err)
	}
	fresh := build(99) // another seed: everything must come from the encoding
	if err := Decode(data, fresh); err != nil {
		t.Fatal(err)
	}
	if fresh.next.next != fresh || fresh.m["self"] != fresh || fresh.m["b"] != fresh.next {
		t.Fatal("pointer identity lost")
	}
	// Aliasing: a write through view shows in vals; rows share one array.
	fresh.view[0] = -7
	if fresh.vals[1] != -7 {
		t.Fatalf("view does not alias vals: %v", fresh.vals)
	}
	full := fresh.rows[0][:6]
	full[5] = 3
	if fresh.rows[2][1] != 3 {
		t.Fatal("rows do not share their backing array")
	}
	if fresh.scale() != 5 || fresh.arr[1] != 5 || fresh.sh.area() != 10 {
		t.Fatalf("scale %v arr %v area %v", fresh.scale(), fresh.arr, fresh.sh.area())
	}
	if fresh.none != nil || fresh.empty == nil || len(fresh.empty) != 0 {
		t.Fatalf("nil and empty slices: %v %v", fresh.none, fresh.empty)
	}
	// The generator continues the original sequence.
	for i := 0; i < 10; i++ {
		if a, b := orig.rng.Float64(), fresh.rng.Float64(); a != b {
			t.Fatalf("draw %d: original %v, decoded %v", i, a, b)
		}
	}
}

// AppendEncode writes Encode's bytes after the caller's, in the room the
// caller gave when it suffices.
func TestAppendEncode(t *testing.T) {
	orig := build(1)
	grow(orig, 5)
	data, err := Encode(orig)
	if err != nil {
		t.Fatal(err)
	}
	head := []byte("frame")
	dst := make([]byte, len(head), len(head)+len(data))
	copy(dst, head)
	out, err := AppendEncode(dst, orig)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, append(head, data...)) {
		t.Fatal("AppendEncode differs from the prefix and Encode")
	}
	if &out[0] != &dst[0] {
		t.Fatal("AppendEncode did not encode in the room given")
	}
}

func TestDecodeRefuses(t *testing.T) {
	orig := build(1)
	grow(orig, 3)
	data, err := Encode(orig)
	if err != nil {
		t.Fatal(err)
	}
	// Every truncation fails with an error, never a panic or a success.
	for n := 0; n < len(data); n += 7 {
		if err := Decode(data[:n], build(1)); err == nil {
			t.Fatalf("decoding %d of %d bytes succeeded", n, len(data))
		}
	}
	bad := append([]byte(nil), data...)
	bad[2] ^= 0xff
	if err := Decode(bad, build(1)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("bad header: %v", err)
	}
	// A closure the fresh value lacks cannot be restored.
	f := build(1)
	f.scale = nil
	if err := Decode(data, f); err == nil {
		t.Fatal("decoded a function into a value without one")
	}
	// Another type is refused.
	type other struct{ x int }
	if err := Decode(data, &other{}); err == nil {
		t.Fatal("decoded a node into another type")
	}
	if _, err := Encode(&struct{ c chan int }{make(chan int)}); err == nil {
		t.Fatal("encoded a channel")
	}
}

// otherNode has fields of node but another shape.
type otherNode struct {
	name string
	next *otherNode
	vals []float32
}

// TestFingerprintAndSize: the fingerprint is a function of the types (not
// of the values, seeds or sizes) and changes with a type's shape; Size is
// the length of the encoding, without encoding.
func TestFingerprintAndSize(t *testing.T) {
	a, b := build(1), build(2)
	grow(b, 50)
	fa, err := Fingerprint(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, _ := Fingerprint(b)
	if fa != fb {
		t.Fatal("fingerprints of two values of one type differ")
	}
	fo, _ := Fingerprint(&otherNode{})
	if fo == fa {
		t.Fatal("fingerprints of types of different shapes agree")
	}
	// An interface holding another dynamic type changes the fingerprint.
	c := build(1)
	c.sh = nil
	if fc, _ := Fingerprint(c); fc == fa {
		t.Fatal("the dynamic type of an interface is not in the fingerprint")
	}
	data, _ := Encode(b)
	n, err := Size(b)
	if err != nil || n != int64(len(data)) {
		t.Fatalf("Size %d, Encode %d bytes (%v)", n, len(data), err)
	}
}

// square is a shape a fresh holder does not hold: holder declares it.
type square struct{ s float64 }

func (q square) area() float64 { return q.s * q.s }

// job stands for work running off the caller's path.
type job struct {
	done chan struct{}
	out  []float64
}

type holder struct {
	sh   shape2
	n    int
	work *job     `snap:"-"`
	ch   chan int `snap:"-"`
}

func (*holder) SnapshotTypes() []any { return []any{square{}} }

// twinWith and twinWithout return two types of one name whose encoded
// fields agree: only the first has a transient field.
func twinWith() reflect.Type {
	type twin struct {
		n    int
		work *job `snap:"-"`
	}
	return reflect.TypeFor[twin]()
}

func twinWithout() reflect.Type {
	type twin struct{ n int }
	return reflect.TypeFor[twin]()
}

// undeclared is holder without the declaration.
type undeclared struct{ sh shape2 }

// TestTransientAndDeclared: a transient field (tagged snap:"-") is not
// encoded, not in the shape, and zero after Decode, even where it holds a
// channel; an interface holds a type that only a declaration (Declarer)
// makes known to Decode.
func TestTransientAndDeclared(t *testing.T) {
	orig := &holder{sh: square{3}, n: 7, work: &job{done: make(chan struct{}), out: []float64{1, 2}}, ch: make(chan int)}
	data, err := Encode(orig)
	if err != nil {
		t.Fatal(err)
	}
	idle := &holder{sh: square{3}, n: 7}
	if idle, _ := Encode(idle); string(idle) != string(data) {
		t.Fatal("a transient field changed the encoding")
	}
	n, err := Size(orig)
	if err != nil || n != int64(len(data)) {
		t.Fatalf("Size %d, Encode %d bytes (%v)", n, len(data), err)
	}
	fresh := &holder{sh: &rect{1, 1}, work: &job{}}
	if err := Decode(data, fresh); err != nil {
		t.Fatal(err)
	}
	if fresh.work != nil || fresh.ch != nil || fresh.n != 7 || fresh.sh.area() != 9 {
		t.Fatalf("decoded %+v", fresh)
	}
	fo, _ := Fingerprint(orig)
	if ff, _ := Fingerprint(fresh); ff != fo {
		t.Fatal("the fingerprint depends on what the value holds now: the declaration should cover it")
	}
	if shape(twinWith()) != shape(twinWithout()) {
		t.Fatal("a transient field is in its struct's shape")
	}
	u, err := Encode(&undeclared{sh: square{2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := Decode(u, &undeclared{sh: &rect{}}); err == nil {
		t.Fatal("decoded an undeclared, unreachable type")
	}
}

// The same state encodes to the same bytes, whatever order its maps
// iterate in.
func TestEncodeIsDeterministic(t *testing.T) {
	orig := build(1)
	for _, k := range []string{"c", "d", "e", "f", "g", "h"} {
		orig.m[k] = &node{name: k}
	}
	first, err := Encode(orig)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		again, err := Encode(orig)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatalf("encoding %d differs from the first", i+1)
		}
	}
}
