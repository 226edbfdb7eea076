package cuda

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// pointStore is what the residency policy needs of a device for one group
// (affine points P, Jacobian results R): upload a point set, run an MSM
// over (a prefix of) a resident set, free a set, check the first n points
// of a set for subgroup membership (the number outside it and the least
// such index, −1 when none).
type pointStore[P any, R any] interface {
	upload(points []P) (any, error)
	msm(h any, scalars []fr.Element) (R, error)
	free(h any)
	checkSubgroup(h any, n int) (bad, first int, err error)
}

// jacobian is the group arithmetic the host does on results (*bls.G1Jac
// and *bls.G2Jac): streamed chunks are added, window sums combined.
type jacobian[R any] interface {
	*R
	AddAssign(*R) *R
	DoubleAssign() *R
}

// vram is a device's byte budget for resident point sets, shared by the G1
// and G2 sets.
type vram struct {
	mu     sync.Mutex
	budget uint64
	used   uint64
}

// residency keeps parameter point sets resident in VRAM within the
// device's budget — an H200 holds a whole 32 GiB PoRep SRS, so each proof
// then moves only its scalars — and streams a set that does not fit
// through the device in chunks (upload, MSM, free), never falling back to
// the CPU.
type residency[P comparable, R any, PR jacobian[R]] struct {
	store pointStore[P, R]
	mem   *vram
	chunk int // points per streamed chunk

	sets map[setKey[P]]any // guarded by mem.mu

	streamedChunks atomic.Int64
}

// setKey identifies a host point slice; the fingerprint (first and last
// points) guards against a new slice reusing a freed one's address.
type setKey[P comparable] struct {
	ptr         uintptr
	n           int
	first, last P
}

func keyOf[P comparable](points []P) setKey[P] {
	return setKey[P]{ptr: uintptr(unsafe.Pointer(unsafe.SliceData(points))), n: len(points), first: points[0], last: points[len(points)-1]}
}

func pointBytes[P any]() uint64 {
	var p P
	return uint64(unsafe.Sizeof(p))
}

func newResidency[P comparable, R any, PR jacobian[R]](store pointStore[P, R], mem *vram) *residency[P, R, PR] {
	chunk := int(mem.budget / pointBytes[P]() / 2)
	chunk = max(chunk, 1<<16)
	return &residency[P, R, PR]{store: store, mem: mem, chunk: chunk, sets: map[setKey[P]]any{}}
}

// handle returns the resident copy of points, uploading it if it fits in
// the budget; nil when it does not fit (the caller streams).
func (r *residency[P, R, PR]) handle(points []P) (any, error) {
	k := keyOf(points)
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	if h, ok := r.sets[k]; ok {
		return h, nil
	}
	size := uint64(len(points)) * pointBytes[P]()
	if r.mem.used+size > r.mem.budget {
		return nil, nil
	}
	h, err := r.store.upload(points)
	if err != nil {
		return nil, nil // out of device memory, say: stream instead
	}
	r.sets[k] = h
	r.mem.used += size
	return h, nil
}

// msm computes Σ scalars[i]·points[i] on the device.
func (r *residency[P, R, PR]) msm(points []P, scalars []fr.Element) (R, error) {
	var res R
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
	err = r.stream(points, func(ch any, from, to int) error {
		part, err := r.store.msm(ch, scalars[from:to])
		if err == nil {
			PR(&res).AddAssign(&part)
		}
		return err
	})
	return res, err
}

// checkSubgroup checks points for membership of the prime-order subgroup
// on the device: the number outside it and the least such index (−1 when
// none). The set is made resident when it fits, so that the check shares
// the upload with the MSMs that follow (a parameter file's points);
// otherwise it streams through the device.
func (r *residency[P, R, PR]) checkSubgroup(points []P) (bad, first int, err error) {
	if len(points) == 0 {
		return 0, -1, nil
	}
	h, err := r.handle(points)
	if err != nil {
		return 0, -1, err
	}
	if h != nil {
		return r.store.checkSubgroup(h, len(points))
	}
	first = -1
	err = r.stream(points, func(ch any, from, to int) error {
		b, f, err := r.store.checkSubgroup(ch, to-from)
		if err == nil && b > 0 && first < 0 {
			first = from + f
		}
		bad += b
		return err
	})
	if err != nil {
		return 0, -1, err
	}
	return bad, first, nil
}

// stream runs fn on each chunk of points uploaded in turn (a set that
// does not fit the budget), freeing each after it.
func (r *residency[P, R, PR]) stream(points []P, fn func(h any, from, to int) error) error {
	for from := 0; from < len(points); from += r.chunk {
		to := min(from+r.chunk, len(points))
		ch, err := r.store.upload(points[from:to])
		if err != nil {
			return fmt.Errorf("cuda: streaming points %d..%d: %w", from, to, err)
		}
		err = fn(ch, from, to)
		r.store.free(ch)
		if err != nil {
			return err
		}
		r.streamedChunks.Add(1)
	}
	return nil
}

// close frees every resident set.
func (r *residency[P, R, PR]) close() {
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	for k, h := range r.sets {
		r.store.free(h)
		delete(r.sets, k)
		r.mem.used -= uint64(k.n) * pointBytes[P]()
	}
}

// forget frees the resident sets that lie within points' memory: the set
// of points itself and any prefix or part of it uploaded on its own.
func (r *residency[P, R, PR]) forget(points []P) {
	if len(points) == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(points)))
	hi := lo + uintptr(len(points))*uintptr(pointBytes[P]())
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	for k, h := range r.sets {
		if k.ptr >= lo && k.ptr < hi {
			r.store.free(h)
			delete(r.sets, k)
			r.mem.used -= uint64(k.n) * pointBytes[P]()
		}
	}
}
