package engine

import (
	"fmt"
	"sync"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/params"
)

// WarmKey makes pk's point sets resident on every GPU now, as each
// device's first region over pk would (groth16.Plan.Warm), the devices in
// parallel: a key loaded before its first proof then costs that proof no
// upload inside the device's lock (the first 10-circuit call after
// create_SRS at 2^24 took 8.0-8.8 s against 3.2 s warm, its first region
// uploading the SRS). Devices out of service are passed over; the first
// error is returned after every device has been tried.
//
// WarmKey then gives back the host pages of pk's sections that every
// device holds (releaseHost), and counts what remains of pk's host copy
// against memory.budget until the key is released: the partitions are
// admitted in what the loaded parameters leave of it.
func (e *Engine) WarmKey(pk *params.ProvingKey) error {
	if pk == nil {
		return nil
	}
	errs := make([]error, len(e.devices))
	var wg sync.WaitGroup
	for i, d := range e.devices {
		if d.kind == "cpu" || d.lock.failed() != nil {
			continue
		}
		wg.Go(func() {
			if err := d.plan.Warm(pk); err != nil {
				if d.lock.markFailed(err) {
					e.log.Error("device out of service", "device", d.name, "index", d.index, "err", err)
				}
				errs[i] = fmt.Errorf("engine: %s: %w", d.name, err)
			}
		})
	}
	wg.Wait()
	e.releaseHost(pk)
	e.adm.holdKey(pk)
	e.prefill(pk)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// releaseHost gives back the host pages of pk's sections (those read
// from a file off the heap: params.Options.OffHeap) when every device
// holds them resident, B_G2's when every device's G2 MSM runs on the
// GPU (gpus.g2_on_gpu): no proof over pk then reads them on the host, and a
// 2^27-domain key (~71 GB) beside its file in /dev/shm would not fit a
// 125 GiB host twice. What later needs them there (a device that streams
// them, the CPU backend after a device failure) reads them from the file
// again (params.EnsureHost), by its path: the descriptor kept since the
// load is closed.
//
// A key whose host copy is over half the memory budget is given back
// also when the devices stream some of its sets (a device memory cap),
// if every device can read those from the file as they go
// (backend.FileStreamer): their page-locking is undone first.
func (e *Engine) releaseHost(pk *params.ProvingKey) {
	withG2, ok := e.allGPUs()
	if !ok {
		return
	}
	held, fromFile := true, e.overHalfBudget(pk.HostBytes())
	for _, d := range e.devices {
		h, f := d.caps.Holds, d.caps.FromFile
		held = held && h != nil && h.HoldsKey(pk, d.plan.G2OnGPU)
		fromFile = fromFile && f != nil && f.StreamsKeyFromFile(pk, d.plan.G2OnGPU)
	}
	if !held && !fromFile {
		return
	}
	if !held {
		for _, d := range e.devices {
			d.caps.FromFile.UnpinKey(pk)
		}
	}
	before := pk.HostBytes()
	pk.ReleaseHost(withG2)
	if held {
		// Nothing reads the file as proofs run: a file removed once
		// loaded gives its pages back (params.ProvingKey.CloseFile).
		pk.CloseFile()
	} else {
		// Now, not inside the first partition's lock: locking a
		// 2^27-domain key's file pages takes seconds.
		for _, d := range e.devices {
			d.caps.FromFile.PinKeyFile(pk)
		}
	}
	e.log.Debug("engine: parameters held by the devices or read from the file; host pages given back", "bytes", before-pk.HostBytes(), "streamed_from_file", !held)
}

// allGPUs reports whether the engine has devices, every one a GPU in
// service, and whether all of them run the G2 MSM (gpus.g2_on_gpu): only
// then may a key's host pages go (B_G2's with withG2).
func (e *Engine) allGPUs() (withG2, ok bool) {
	if len(e.devices) == 0 {
		return false, false
	}
	withG2 = true
	for _, d := range e.devices {
		if d.kind == "cpu" || d.lock.failed() != nil {
			return false, false
		}
		withG2 = withG2 && d.plan.G2OnGPU
	}
	return withG2, true
}

// overHalfBudget reports whether a key of bytes on the host is over half
// the memory budget: its devices then read the sets they stream from its
// file rather than from a host copy.
func (e *Engine) overHalfBudget(bytes uint64) bool {
	return e.adm.budget > 0 && bytes > e.adm.budget/2
}

// prefillPartitions is how many partitions' buffers a loaded key's
// warm-up maps and page-locks ahead unless Options.PrefillPartitions says
// otherwise: a 32 GiB PoRep or SnapDeals proof's ten, the call bellperson
// makes.
const prefillPartitions = 10

// prefill fills the buffer pool, in the background, with the page-locked
// buffers of pk's first partitions (Prefill).
func (e *Engine) prefill(pk *params.ProvingKey) {
	if pk == nil || len(pk.H) == 0 {
		return
	}
	e.Prefill(len(pk.H)+1, len(pk.IC), len(pk.L), e.prefillK)
}

// Prefill fills the buffer pool, in the background, with the page-locked
// buffers that the first partitions of a circuit take (a, b, c over its
// domain of n and its aux), within half of what the budget has left and
// the pool's own limit (a memory.pool_max below one buffer turns it off),
// less the buffers of those sizes already pooled: the host synthesizes
// or loads meanwhile, and the first partitions find them there. WarmKey
// calls it for Options.PrefillPartitions of the key's partitions; a
// command that reads its circuit before its parameters calls it before
// the load, which then hides the locking. Only a GPU locks buffers;
// without one the pool fills as partitions run. Prefills run one at a
// time, in the order called.
func (e *Engine) Prefill(n, nInputs, nAux, partitions int) {
	if e.pool.pinner == nil || n <= 0 || nAux < 0 || partitions <= 0 {
		return
	}
	per := e.workingSet(n, nInputs, nAux)
	k := min(partitions, int(e.adm.hostRoom()/2/per))
	var sizes []int
	for range k {
		sizes = append(sizes, n, n, n)
		if nAux > 0 {
			sizes = append(sizes, nAux)
		}
	}
	if len(sizes) == 0 {
		return
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.wg.Add(1) // under e.mu: Close waits only once closed is set
	prev, done := e.prefilled, make(chan struct{})
	e.prefilled = done
	e.mu.Unlock()
	go func() {
		defer e.wg.Done()
		defer close(done)
		if prev != nil {
			select {
			case <-prev:
			case <-e.closing:
				return
			}
		}
		start := e.clock.Now()
		added := e.pool.prefill(sizes, e.closing)
		e.log.Debug("engine: buffers page-locked ahead", "partitions", k, "bytes", added, "took", e.clock.Now().Sub(start))
	}()
}

// ReleaseKey frees the device memory that backends keep for pk's points,
// at once when no job of the engine uses pk, else when the last job that
// does has let go of everything (its partitions have left the pipeline): a
// kernel must never read freed points. The SRS cache calls it when the
// last handle of an evicted or dropped SRS goes, and cuzk_evict_params
// when a circuit's parameters are evicted; a later job with pk uploads its
// points again.
func (e *Engine) ReleaseKey(pk *params.ProvingKey) {
	if pk != nil {
		e.keys.release(pk)
	}
}

// releaseKey is what a key's release frees: its bytes in the budget, and
// what the devices keep of it.
func releaseKey(adm *admission, devices []*device, pk *params.ProvingKey) {
	adm.unholdKey(pk)
	for _, d := range devices {
		if r := d.caps.Keys; r != nil {
			r.ReleaseKey(pk)
		}
	}
}

// keyUses counts, for each key, the jobs using it that have not settled,
// and defers a key's release (free) until the last of them has.
type keyUses struct {
	free func(*params.ProvingKey)
	mu   sync.Mutex
	uses map[*params.ProvingKey]*keyUse
}

// keyUse counts the jobs using a key that have not settled, and whether a
// release waits for them.
type keyUse struct {
	jobs    int
	release bool
}

func newKeyUses(free func(*params.ProvingKey)) *keyUses {
	return &keyUses{free: free, uses: map[*params.ProvingKey]*keyUse{}}
}

// use records that a job with pk was submitted and returns the function
// to call once the job has settled.
func (k *keyUses) use(pk *params.ProvingKey) (settled func()) {
	k.mu.Lock()
	u := k.uses[pk]
	if u == nil {
		u = &keyUse{}
		k.uses[pk] = u
	}
	u.jobs++
	k.mu.Unlock()
	return func() {
		k.mu.Lock()
		u.jobs--
		last := u.jobs == 0
		if last {
			delete(k.uses, pk)
		}
		k.mu.Unlock()
		if last && u.release {
			k.free(pk)
		}
	}
}

// release frees pk now when no job uses it, else once the last has
// settled.
func (k *keyUses) release(pk *params.ProvingKey) {
	k.mu.Lock()
	if u := k.uses[pk]; u != nil {
		u.release = true
		k.mu.Unlock()
		return
	}
	k.mu.Unlock()
	k.free(pk)
}

// SubgroupChecker returns the subgroup checker of the first device whose
// backend offers one (a GPU checks a parameter file's points far faster
// than the CPU, and uploads them for the MSMs on the way), or nil: the
// loader then tries the Filecoin manifest and checks on the CPU. The CPU
// device's checker is not offered: it is the loader's own fall-back, and
// offering it would skip the manifest. A device out of service is passed
// over, and one whose check fails with backend.ErrDeviceFailed goes out of
// service as if a partition had met the error.
func (e *Engine) SubgroupChecker() params.SubgroupChecker { return e.LoadChecker(0) }

// LoadChecker is SubgroupChecker for loading a parameter file of
// fileBytes (0: unknown). A key that WarmKey would give back for its
// devices to stream from its file (over half the memory budget, every
// device a backend.FileStreamer) gives back each range's host pages as
// soon as a device has checked or taken it, while the rest of the file
// decodes, instead of once the whole key is on the host: under a device
// memory cap a 2^27-domain key's streamed sets (~60 GB) beside its file
// in /dev/shm would not fit a 125 GiB host. B_G2's pages go only where
// every device runs the G2 MSM.
func (e *Engine) LoadChecker(fileBytes int64) params.SubgroupChecker {
	withG2, release := e.allGPUs()
	release = release && fileBytes > 0 && e.overHalfBudget(uint64(fileBytes))
	for _, d := range e.devices {
		release = release && d.caps.FromFile != nil
	}
	for _, d := range e.devices {
		if _, isCPU := d.be.(*cpu.Backend); isCPU || d.kind == "cpu" || d.lock.failed() != nil {
			continue
		}
		c := d.caps.Subgroup
		if c == nil {
			continue
		}
		dc := deviceChecker{e: e, d: d, c: c}
		if rc, ok := c.(params.RangeChecker); ok {
			return rangeDeviceChecker{dc, rc, release, release && withG2}
		}
		return dc
	}
	return nil
}

// deviceChecker is a device's subgroup checker that takes the device out
// of service on a sticky error.
type deviceChecker struct {
	e *Engine
	d *device
	c params.SubgroupChecker
}

// fail marks the device failed by err if it must be, and returns err.
func (c deviceChecker) fail(err error) error {
	if c.d.lock.markFailed(err) {
		c.e.log.Error("device out of service", "device", c.d.name, "index", c.d.index, "err", err)
	}
	return err
}

func (c deviceChecker) CheckSubgroupG1(p []bls.G1Affine) (int, error) {
	i, err := c.c.CheckSubgroupG1(p)
	return i, c.fail(err)
}

func (c deviceChecker) CheckSubgroupG2(p []bls.G2Affine) (int, error) {
	i, err := c.c.CheckSubgroupG2(p)
	return i, c.fail(err)
}

// rangeDeviceChecker is deviceChecker for a params.RangeChecker; with
// releaseG1 (releaseG2) a G1 (G2) section's ranges give their host pages
// back once the device has them (LoadChecker).
type rangeDeviceChecker struct {
	deviceChecker
	rc                   params.RangeChecker
	releaseG1, releaseG2 bool
}

func (c rangeDeviceChecker) BeginG1(p []bls.G1Affine) params.SectionCheck {
	return deviceSection{c.deviceChecker, c.rc.BeginG1(p), releaser(p, c.releaseG1)}
}

func (c rangeDeviceChecker) BeginG2(p []bls.G2Affine) params.SectionCheck {
	return deviceSection{c.deviceChecker, c.rc.BeginG2(p), releaser(p, c.releaseG2)}
}

// releaser returns what gives back the host pages of points[from:to]
// (params.ReleaseHost), or nil when on is false.
func releaser[P any](points []P, on bool) func(from, to int) {
	if !on {
		return nil
	}
	return func(from, to int) {
		if from < to {
			params.ReleaseHost(unsafe.Pointer(&points[from]), uintptr(to-from)*unsafe.Sizeof(points[0]))
		}
	}
}

type deviceSection struct {
	c       deviceChecker
	s       params.SectionCheck
	release func(from, to int) // nil: the pages stay
}

func (s deviceSection) Check(from, to int) (int, error) {
	i, err := s.s.Check(from, to)
	if err == nil && i < 0 {
		s.released(from, to)
	}
	return i, s.c.fail(err)
}

func (s deviceSection) Fill(from, to int) error {
	err := s.s.Fill(from, to)
	if err == nil {
		s.released(from, to)
	}
	return s.c.fail(err)
}

// released gives back the pages of a range the device has taken.
func (s deviceSection) released(from, to int) {
	if s.release != nil {
		s.release(from, to)
	}
}

func (s deviceSection) Done(complete bool) { s.s.Done(complete) }
