// Command workload is the program examples/tune-program tunes: it builds an
// in-memory search index over generated log lines, batch by batch. A
// generator fills batches of records and queues them; workers index each
// batch (term → postings), serialise the postings in term order, compress
// them with DEFLATE and hash the result; the index keeps every batch's
// compressed postings and its forward index (each record's terms) for the
// whole run, so the heap the garbage collector traces grows as it runs. It knows nothing of the tuner: its
// knobs are its flags and the Go runtime's environment variables (GOGC,
// GOMEMLIMIT), as in any Go service.
//
//	go run ./examples/tune-program/workload -batch 1024 -workers 2 -queue 16
//
// It prints one JSON line: input processed, wall time, throughput, per-batch
// latency quantiles (from a batch's queueing to its compressed output) and a
// checksum of the output, the same for both index strategies.
package main

import (
	"bytes"
	"cmp"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config holds the program's knobs (its flags).
type Config struct {
	Records int    // records to process in total
	Batch   int    // records per batch
	Workers int    // indexing goroutines
	Queue   int    // batches the generator may run ahead of the workers
	Index   string // "map" (hash map of postings) or "sort" (sort term–record pairs)
	Level   int    // DEFLATE level
	Seed    uint64 // seed of the generated data
}

// Result is what the program prints.
type Result struct {
	Records      int     `json:"records"`
	Batches      int     `json:"batches"`
	InputBytes   int64   `json:"input_bytes"`
	OutputBytes  int64   `json:"output_bytes"`
	Seconds      float64 `json:"seconds"`
	ThroughputMB float64 `json:"throughput_mb_s"`
	P50Ms        float64 `json:"p50_ms"`
	P95Ms        float64 `json:"p95_ms"`
	MaxMs        float64 `json:"max_ms"`
	GCCycles     uint32  `json:"gc_cycles"`
	HeapMiB      float64 `json:"heap_mib"` // live heap at the end: the index
	Checksum     string  `json:"checksum"`
}

func main() {
	var c Config
	flag.IntVar(&c.Records, "records", 300_000, "records to process in total")
	flag.IntVar(&c.Batch, "batch", 1024, "records per batch")
	flag.IntVar(&c.Workers, "workers", runtime.GOMAXPROCS(0), "indexing goroutines")
	flag.IntVar(&c.Queue, "queue", 16, "batches the generator may run ahead of the workers (channel capacity)")
	flag.StringVar(&c.Index, "index", "map", "index strategy: map (hash map of postings) or sort (sort term–record pairs)")
	flag.IntVar(&c.Level, "level", flate.DefaultCompression, "DEFLATE level (-1 … 9)")
	flag.Uint64Var(&c.Seed, "seed", 1, "seed of the generated data")
	flag.Parse()
	r, err := Run(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "workload:", err)
		os.Exit(2)
	}
	json.NewEncoder(os.Stdout).Encode(r)
}

// batch is a run of records: one string holding them all (so the index's
// terms are substrings, not copies) and each record's end offset.
type batch struct {
	text   string
	ends   []int32
	queued time.Time
}

// Run processes c.Records generated records and measures it.
func Run(c Config) (Result, error) {
	switch {
	case c.Records < 1:
		return Result{}, fmt.Errorf("records = %d: must be ≥ 1", c.Records)
	case c.Batch < 1:
		return Result{}, fmt.Errorf("batch = %d: must be ≥ 1", c.Batch)
	case c.Workers < 1:
		return Result{}, fmt.Errorf("workers = %d: must be ≥ 1", c.Workers)
	case c.Queue < 0:
		return Result{}, fmt.Errorf("queue = %d: must be ≥ 0", c.Queue)
	case c.Index != "map" && c.Index != "sort":
		return Result{}, fmt.Errorf("index = %q: must be map or sort", c.Index)
	case c.Level < -1 || c.Level > 9:
		return Result{}, fmt.Errorf("level = %d: must be in [-1, 9]", c.Level)
	}
	vocab := vocabulary(20_000, c.Seed)
	var gc0 runtime.MemStats
	runtime.ReadMemStats(&gc0)
	start := time.Now()

	queue := make(chan *batch, c.Queue)
	var inBytes int64
	go func() {
		rng := rand.New(rand.NewPCG(c.Seed, 2))
		// Word frequencies follow Zipf's law, as in text (s = 1.1): drawn
		// from a table of 2¹⁶ Zipf draws, so generating is cheap beside
		// indexing.
		zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
		table := make([]uint16, 1<<16)
		for i := range table {
			table[i] = uint16(zipf.Uint64())
		}
		var buf []byte
		for done := 0; done < c.Records; {
			n := min(c.Batch, c.Records-done)
			buf = buf[:0]
			ends := make([]int32, n)
			for i := range n {
				words := 8 + rng.IntN(9)
				for w := range words {
					if w > 0 {
						buf = append(buf, ' ')
					}
					buf = append(buf, vocab[table[rng.Uint32()>>16]]...)
				}
				buf = append(buf, '\n')
				ends[i] = int32(len(buf))
			}
			inBytes += int64(len(buf))
			queue <- &batch{text: string(buf), ends: ends, queued: time.Now()}
			done += n
		}
		close(queue)
	}()

	type done struct {
		latency time.Duration
		seg     *segment
		sum     [sha256.Size]byte
	}
	results := make(chan done, c.Workers)
	var wg sync.WaitGroup
	for range c.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range queue {
				var ser []byte
				if c.Index == "map" {
					ser = indexMap(b)
				} else {
					ser = indexSort(b)
				}
				// Each segment is a self-contained DEFLATE stream, written
				// by a writer of its own (about 1 MB of state at levels
				// 2–9): a cost per batch that large batches amortise.
				var comp bytes.Buffer
				zw, _ := flate.NewWriter(&comp, c.Level) // level checked above
				zw.Write(ser)
				zw.Close()
				seg := &segment{postings: comp.Bytes(), forward: forward(b)}
				results <- done{time.Since(b.queued), seg, sha256.Sum256(seg.postings)}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	var lat []float64
	var out int64
	var sum [sha256.Size]byte
	var index []*segment
	for d := range results {
		lat = append(lat, d.latency.Seconds()*1000)
		index = append(index, d.seg)
		out += int64(len(d.seg.postings))
		for i := range sum { // XOR: the same whatever order the batches finish in
			sum[i] ^= d.sum[i]
		}
	}
	secs := time.Since(start).Seconds()
	var gc1 runtime.MemStats
	runtime.ReadMemStats(&gc1)
	runtime.KeepAlive(index)
	sort.Float64s(lat)
	return Result{
		Records: c.Records, Batches: len(lat), InputBytes: inBytes, OutputBytes: out,
		Seconds: secs, ThroughputMB: float64(inBytes) / 1e6 / secs,
		P50Ms: quantile(lat, 0.5), P95Ms: quantile(lat, 0.95), MaxMs: lat[len(lat)-1],
		GCCycles: gc1.NumGC - gc0.NumGC, HeapMiB: float64(gc1.HeapAlloc) / (1 << 20),
		Checksum: hex.EncodeToString(sum[:8]),
	}, nil
}

// segment is one batch's part of the index.
type segment struct {
	postings []byte     // compressed postings
	forward  [][]uint32 // per record, its terms' hashes
}

// forward lists each record's terms as FNV-1a hashes, one slice per record.
func forward(b *batch) [][]uint32 {
	fw := make([][]uint32, len(b.ends))
	forWords(b, func(w string, rec uint32) {
		h := uint32(2166136261)
		for i := 0; i < len(w); i++ {
			h = (h ^ uint32(w[i])) * 16777619
		}
		fw[rec] = append(fw[rec], h)
	})
	return fw
}

// indexMap builds term → postings in a hash map, then serialises it in term
// order.
func indexMap(b *batch) []byte {
	idx := make(map[string][]uint32)
	forWords(b, func(w string, rec uint32) {
		p := idx[w]
		if len(p) == 0 || p[len(p)-1] != rec {
			idx[w] = append(p, rec)
		}
	})
	terms := make([]string, 0, len(idx))
	for t := range idx {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	var ser []byte
	for _, t := range terms {
		ser = appendTerm(ser, t, idx[t])
	}
	return ser
}

// indexSort sorts (term, record) pairs and groups them: no map, one large
// slice, O(n log n) comparisons.
func indexSort(b *batch) []byte {
	type pair struct {
		term string
		rec  uint32
	}
	var pairs []pair
	forWords(b, func(w string, rec uint32) { pairs = append(pairs, pair{w, rec}) })
	slices.SortFunc(pairs, func(x, y pair) int {
		return cmp.Or(cmp.Compare(x.term, y.term), cmp.Compare(x.rec, y.rec))
	})
	var ser []byte
	var post []uint32
	for i, p := range pairs {
		if len(post) == 0 || post[len(post)-1] != p.rec {
			post = append(post, p.rec)
		}
		if i+1 == len(pairs) || pairs[i+1].term != p.term {
			ser = appendTerm(ser, p.term, post)
			post = post[:0]
		}
	}
	return ser
}

// forWords calls f for each word of each record of b, split by
// strings.Fields as ordinary code does (a slice of words per record: much
// of the program's garbage).
func forWords(b *batch, f func(w string, rec uint32)) {
	start := 0
	for r, end := range b.ends {
		for _, w := range strings.Fields(b.text[start:end]) {
			f(w, uint32(r))
		}
		start = int(end)
	}
}

// appendTerm serialises one term and its postings, delta-coded varints.
func appendTerm(ser []byte, term string, post []uint32) []byte {
	ser = binary.AppendUvarint(ser, uint64(len(term)))
	ser = append(ser, term...)
	ser = binary.AppendUvarint(ser, uint64(len(post)))
	prev := uint32(0)
	for _, p := range post {
		ser = binary.AppendUvarint(ser, uint64(p-prev))
		prev = p
	}
	return ser
}

// vocabulary returns n distinct lowercase words of 2–11 letters.
func vocabulary(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	for len(out) < n {
		w := make([]byte, 2+rng.IntN(10))
		for i := range w {
			w[i] = byte('a' + rng.IntN(26))
		}
		if !seen[string(w)] {
			seen[string(w)] = true
			out = append(out, string(w))
		}
	}
	return out
}

// quantile of sorted xs (linear interpolation, Hyndman–Fan type 7).
func quantile(xs []float64, q float64) float64 {
	h := q * float64(len(xs)-1)
	i := int(h)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-float64(i))*(xs[i+1]-xs[i])
}
