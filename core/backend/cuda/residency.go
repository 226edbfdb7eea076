package cuda

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// pointStore is what the residency policy needs of a device: upload a G1
// point set, run an MSM over (a prefix of) a resident set, free a set.
type pointStore interface {
	upload(points []bls.G1Affine) (any, error)
	msm(h any, scalars []fr.Element) (bls.G1Jac, error)
	free(h any)
}

const g1Bytes = uint64(unsafe.Sizeof(bls.G1Affine{}))

// residency keeps parameter point sets resident in VRAM within a byte
// budget — an H200 holds a whole 32 GiB PoRep SRS, so each proof then
// moves only its scalars — and streams a set that does not fit through the
// device in chunks (upload, MSM, free), never falling back to the CPU.
type residency struct {
	store  pointStore
	budget uint64 // bytes of points that may stay resident
	chunk  int    // points per streamed chunk

	mu   sync.Mutex
	sets map[setKey]any
	used uint64

	streamedChunks atomic.Int64
}

// setKey identifies a host point slice; the fingerprint (first and last
// points) guards against a new slice reusing a freed one's address.
type setKey struct {
	ptr         uintptr
	n           int
	first, last bls.G1Affine
}

func keyOf(points []bls.G1Affine) setKey {
	return setKey{ptr: uintptr(unsafe.Pointer(unsafe.SliceData(points))), n: len(points), first: points[0], last: points[len(points)-1]}
}

func newResidency(store pointStore, budget uint64) *residency {
	chunk := int(budget / g1Bytes / 2)
	chunk = max(chunk, 1<<16)
	return &residency{store: store, budget: budget, chunk: chunk, sets: map[setKey]any{}}
}

// handle returns the resident copy of points, uploading it if it fits in
// the budget; nil when it does not fit (the caller streams).
func (r *residency) handle(points []bls.G1Affine) (any, error) {
	k := keyOf(points)
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.sets[k]; ok {
		return h, nil
	}
	size := uint64(len(points)) * g1Bytes
	if r.used+size > r.budget {
		return nil, nil
	}
	h, err := r.store.upload(points)
	if err != nil {
		return nil, nil // out of device memory, say: stream instead
	}
	r.sets[k] = h
	r.used += size
	return h, nil
}

// msm computes Σ scalars[i]·points[i] on the device.
func (r *residency) msm(points []bls.G1Affine, scalars []fr.Element) (bls.G1Jac, error) {
	var res bls.G1Jac
	if len(points) == 0 {
		return res, nil
	}
	h, err := r.handle(points)
	if err != nil {
		return res, err
	}
	if h != nil {
		return r.store.msm(h, scalars)
	}
	for from := 0; from < len(points); from += r.chunk {
		to := min(from+r.chunk, len(points))
		ch, err := r.store.upload(points[from:to])
		if err != nil {
			return res, fmt.Errorf("cuda: streaming points %d..%d: %w", from, to, err)
		}
		part, err := r.store.msm(ch, scalars[from:to])
		r.store.free(ch)
		if err != nil {
			return res, err
		}
		res.AddAssign(&part)
		r.streamedChunks.Add(1)
	}
	return res, nil
}

// close frees every resident set.
func (r *residency) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, h := range r.sets {
		r.store.free(h)
		delete(r.sets, k)
	}
	r.used = 0
}
