// The cache of live studies, bounded by count and bytes, and a live study's byte accounting (weight).

package service

import (
	"container/list"
	"sync"
	"unsafe"
)

// weight is the memory a live study holds: its agent's state as measured
// at the last snapshot or measurement (snap.Size: the graph's data, which
// matches the heap it takes within a few per cent), else an estimate (m+1
// posteriors, each with a prior covariance and up to N posterior columns
// over N points); plus its decisions (the slice, each decision's vectors),
// idempotency keys, and the study's fixed parts.
func (l *live) weight() int64 {
	w := l.bytes
	if w == 0 {
		n := int64(len(l.b.Points))
		if n == 0 { // native box: the model's own candidate set
			n = int64(l.spec.Space.Candidates)
		}
		w = int64(l.b.Info.M+1) * 2 * n * n * 8
	}
	return w + l.bookBytes()
}

// bookBytes is the memory of the study's bookkeeping beside its agent: the
// decisions and their vectors, the keys, the candidate points.
func (l *live) bookBytes() int64 {
	w := int64(cap(l.decs))*int64(unsafe.Sizeof(decState{})) + l.vecBytes
	w += int64(len(l.keys)) * 160 // key, record and map slot
	w += l.keyBytes
	w += int64(len(l.b.Points)) * (24 + allocSize(8*spaceDim(&l.spec.Space)))
	return w + 16<<10
}

// allocSize is the heap an allocation of n bytes takes (Go's size classes,
// approximately: 8, 16, then multiples of 16 up to 256, then of 1/8 of the
// power of two).
func allocSize(n int) int64 {
	switch {
	case n <= 0:
		return 0
	case n <= 8:
		return 8
	case n <= 256:
		return int64((n + 15) &^ 15)
	}
	step := 1
	for step*16 < n {
		step *= 2
	}
	return int64((n + step - 1) / step * step)
}

// cache is an LRU of live studies, bounded by count and by the memory they
// hold (it always keeps the most recent study).
type cache struct {
	mu       sync.Mutex
	cap      int
	maxBytes int64
	bytes    int64
	ll       *list.List
	m        map[string]*list.Element
}

type cacheEntry struct {
	l *live
	w int64 // the weight counted in bytes
}

func newCache(capacity int, maxBytes int64) *cache {
	if capacity < 1 {
		capacity = 1
	}
	return &cache{cap: capacity, maxBytes: maxBytes, ll: list.New(), m: map[string]*list.Element{}}
}

func (c *cache) get(id string) *live {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[id]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*cacheEntry).l
	}
	return nil
}

// put inserts l unless the study is cached already; it returns the cached one.
func (c *cache) put(l *live, w int64) *live {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[l.id]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*cacheEntry).l
	}
	c.m[l.id] = c.ll.PushFront(&cacheEntry{l: l, w: w})
	c.bytes += w
	c.evict()
	return l
}

// reweigh updates the weight of a cached study (after it grew or was
// measured).
func (c *cache) reweigh(l *live, w int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[l.id]; ok && e.Value.(*cacheEntry).l == l {
		ce := e.Value.(*cacheEntry)
		c.bytes += w - ce.w
		ce.w = w
		c.evict()
	}
}

func (c *cache) evict() {
	for c.ll.Len() > 1 && (c.ll.Len() > c.cap || (c.maxBytes > 0 && c.bytes > c.maxBytes)) {
		e := c.ll.Back()
		c.ll.Remove(e)
		ce := e.Value.(*cacheEntry)
		delete(c.m, ce.l.id)
		c.bytes -= ce.w
	}
}

// remove drops l (only that instance) from the cache.
func (c *cache) remove(l *live) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[l.id]; ok && e.Value.(*cacheEntry).l == l {
		c.ll.Remove(e)
		delete(c.m, l.id)
		c.bytes -= e.Value.(*cacheEntry).w
	}
}

func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

func (c *cache) size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
