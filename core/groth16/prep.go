package groth16

import (
	"math/bits"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/internal/par"
	"github.com/cuzk/cuzk/core/r1cs"
)

// Prepared holds the scalars of the A and B queries, selected by density
// bitmaps from the assignment ("prep"). Release returns its vectors for
// reuse once the proof no longer needs them.
type Prepared struct {
	AScalars []fr.Element // inputs, then aux with their A-density bit
	BScalars []fr.Element // B-density inputs, then B-density aux
}

// Prepare gathers the query scalars of asg, in parallel, into recycled
// vectors: measured on the H200 host, fresh 512 MiB vectors at 2^24
// constraints cost ~0.6 s a partition in page faults and zeroing (2^26:
// ~5.8 s), reused ones nothing.
func Prepare(asg *Assignment) *Prepared {
	d := asg.Density
	return &Prepared{
		AScalars: gather(asg.Inputs, nil, asg.Aux, &d.AAux),
		BScalars: gather(asg.Inputs, &d.BInput, asg.Aux, &d.BAux),
	}
}

// prepareB gathers the B scalars alone (the CPU's B_G2 MSM needs them
// when the device selects its own).
func prepareB(asg *Assignment) *Prepared {
	d := asg.Density
	return &Prepared{BScalars: gather(asg.Inputs, &d.BInput, asg.Aux, &d.BAux)}
}

// Release hands the vectors back for the next Prepare; p must not be used
// afterwards. A nil p is a no-op.
func (p *Prepared) Release() {
	if p == nil {
		return
	}
	recycle.put(p.AScalars)
	recycle.put(p.BScalars)
	p.AScalars, p.BScalars = nil, nil
}

// recycled keeps at most maxKept released vectors (one partition's A and
// B): enough for proof after proof without holding memory beyond what a
// partition in flight already uses.
type recycled struct {
	mu   sync.Mutex
	kept [][]fr.Element
}

const maxKept = 2

var recycle recycled

// get returns a vector of length n: a kept one whose capacity fits (at
// most twice n, so a small proof does not pin a large vector), or a new
// one.
func (r *recycled) get(n int) []fr.Element {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, v := range r.kept {
		if cap(v) >= n && cap(v) <= 2*n {
			r.kept = append(r.kept[:i], r.kept[i+1:]...)
			return v[:n]
		}
	}
	return make([]fr.Element, n)
}

func (r *recycled) put(v []fr.Element) {
	if cap(v) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.kept) == maxKept {
		r.kept = r.kept[1:] // drop the oldest
	}
	r.kept = append(r.kept, v)
}

// gather returns the scalars selected by the density bitmaps: inputs whose
// bit is set in inDensity (all of them when it is nil), then aux whose bit
// is set in auxDensity. The aux part is split into blocks of whole bitmap
// words, each copied by its own goroutine at an offset from the popcounts.
func gather(inputs []fr.Element, inDensity *r1cs.Bitmap, aux []fr.Element, auxDensity *r1cs.Bitmap) []fr.Element {
	nIn := len(inputs)
	if inDensity != nil {
		nIn = inDensity.Count()
	}
	// offsets[b]: where block b's selected aux values start
	words := auxDensity.Words
	const blockWords = 1 << 12 // 2^18 variables a block
	nBlocks := (len(words) + blockWords - 1) / blockWords
	block := func(b int) []uint64 { return words[b*blockWords : min((b+1)*blockWords, len(words))] }
	offsets := make([]int, nBlocks+1)
	offsets[0] = nIn
	for b := range nBlocks {
		c := 0
		for _, w := range block(b) {
			c += bits.OnesCount64(w)
		}
		offsets[b+1] = offsets[b] + c
	}
	out := recycle.get(offsets[nBlocks])
	k := 0
	for i := range inputs {
		if inDensity == nil || inDensity.Get(i) {
			out[k] = inputs[i]
			k++
		}
	}
	par.For(nBlocks, func(b int) {
		at := offsets[b]
		for i, w := range block(b) {
			base := (b*blockWords + i) * 64
			for ; w != 0; w &= w - 1 {
				out[at] = aux[base+bits.TrailingZeros64(w)]
				at++
			}
		}
	})
	return out
}
