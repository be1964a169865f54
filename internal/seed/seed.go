// Package seed derives independent random streams from a run's seed, so that
// every (trial, agent) pair gets its own generator whatever the worker count.
package seed

import (
	"hash/fnv"
	"math/rand/v2"
)

// Derive mixes a base seed with labels and integers into a new 64-bit seed
// (FNV-1a over the labels, then SplitMix64 finalisation).
func Derive(base uint64, label string, ints ...int) uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) {
		for i := 0; i < 8; i++ {
			b[i] = byte(v >> (8 * i))
		}
		h.Write(b[:])
	}
	put(base)
	h.Write([]byte(label))
	for _, v := range ints {
		put(uint64(int64(v)))
	}
	return mix(h.Sum64())
}

func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Rand returns a PCG generator seeded from s.
func Rand(s uint64) *rand.Rand {
	return rand.New(rand.NewPCG(s, mix(s^0x5851f42d4c957f2d)))
}

// Stream is a generator that is re-seeded in place: At(s) returns the same
// *rand.Rand, now producing the sequence of Rand(s). It lets the runner give
// every round its own stream (common random numbers across algorithms)
// without allocating per round. A Stream is not safe for concurrent use.
type Stream struct {
	pcg rand.PCG
	r   *rand.Rand
}

// NewStream returns a Stream; call At before drawing.
func NewStream() *Stream {
	s := &Stream{}
	s.r = rand.New(&s.pcg)
	return s
}

// At re-seeds the stream with s and returns its generator; the draws that
// follow equal those of Rand(s).
func (st *Stream) At(s uint64) *rand.Rand {
	st.pcg.Seed(s, mix(s^0x5851f42d4c957f2d))
	return st.r
}
