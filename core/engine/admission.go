package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/sysmem"
	"github.com/cuzk/cuzk/core/units"
)

// resolveBudget turns memory.budget into bytes: as given, or for "auto"
// the memory this process may use (total, nil: the machine's) less
// memory.safety_margin.
func resolveBudget(m config.Memory, total func() (uint64, error)) (uint64, error) {
	if !m.Budget.Auto() {
		return uint64(m.Budget), nil
	}
	if total == nil {
		total = sysmem.Total
	}
	t, err := total()
	if err != nil {
		return 0, fmt.Errorf("engine: memory.budget = \"auto\": %w (set memory.budget to a size)", err)
	}
	b, err := sysmem.Budget(t, uint64(m.SafetyMargin))
	if err != nil {
		return 0, fmt.Errorf("engine: memory.budget = \"auto\": %w (lower memory.safety_margin or set memory.budget)", err)
	}
	return b, nil
}

// admission is the memory budget: each partition reserves its working set
// before synthesis starts and releases it when its buffers are handed to
// the dealloc goroutine; the host copies of the loaded parameters are held
// beside them (at 2^26 a key is ~38 GB, at 2^27 ~77 GB: the partitions
// must fit in what they leave). Reserved and held bytes together never
// exceed the budget.
//
// The budget is not all the host has: files in /dev/shm or tmpfs (a
// 2^27-domain parameter file is ~71 GB, kept there where the disk is
// small), the host's own buffers (bellperson's assignments, ten a call)
// and other processes use memory it cannot see. So a partition is also
// admitted only when the memory the host could map now (sysmem.Available)
// holds what it maps beyond the idle pooled buffers it reuses, with
// memory.safety_margin to spare; it waits, polling, until then. The first
// partition in flight is always admitted within the budget: progress
// never waits on memory only the pipeline could free. (A 10-circuit call
// at 2^26 on the H200's 125 GiB host was killed for memory with the budget
// alone.)
type admission struct {
	mu       sync.Mutex
	budget   uint64
	keys     uint64                        // held by loaded parameters (hold)
	held     map[*params.ProvingKey]uint64 // the keys held by holdKey, by their bytes
	reserved uint64
	peak     uint64
	waiting  int
	changed  chan struct{} // closed and replaced on every release

	avail     func() (uint64, error) // what the host could map now; nil: not consulted
	idle      func() uint64          // idle pooled bytes a partition may reuse; nil: none
	margin    uint64
	poll      time.Duration
	memWaits  int    // partitions that waited for the host's memory
	unbacked  uint64 // bytes of partitions admitted and not yet backed (backed)
	lastAvail uint64
}

// availPoll is how often a partition waiting for the host's memory looks
// again: memory freed outside the engine sends no signal.
const availPoll = 200 * time.Millisecond

func newAdmission(budget uint64) *admission {
	return &admission{budget: budget, held: map[*params.ProvingKey]uint64{}, changed: make(chan struct{}), poll: availPoll}
}

// workingSet estimates a partition's peak host bytes when the host
// gathers the query scalars (the CPU backend, gpus.device_prep = false, or
// B_G2 on the CPU): a, b, c over the domain, the gathered A/B scalars, and
// the MSM's compacted copies.
func workingSet(n, nInputs, nAux int) uint64 {
	const pointAndScalar = 96 + 32
	return uint64(3*n*elemSize) + uint64(2*(nInputs+nAux)*elemSize) + uint64(n/2*pointAndScalar)
}

// deviceWorkingSet is a partition's peak host bytes when its device
// selects the query scalars and runs every MSM (a GPU's default plan): a,
// b, c and the page-locked copy of aux the device uploads. At 2^27 (a 32
// GiB PoRep partition) 17.1 GB against workingSet's 30.2 GB; reserving the
// larger figure left the pool's limit (the budget less the reservations)
// below one partition's buffers, so that each partition mapped and
// page-locked its buffers anew.
func deviceWorkingSet(n, nAux int) uint64 {
	return uint64((3*n + nAux) * elemSize)
}

// workingSetOf is the estimate an engine with these device plans reserves
// for a partition: a partition may go to any device, so the host-prep
// estimate unless every plan selects the scalars on its device and runs
// B_G2 there.
func workingSetOf(plans []*groth16.Plan) func(n, nInputs, nAux int) uint64 {
	onDevice := len(plans) > 0
	for _, p := range plans {
		onDevice = onDevice && p.DevicePrep && p.G2OnGPU
	}
	if onDevice {
		return func(n, _, nAux int) uint64 { return deviceWorkingSet(n, nAux) }
	}
	return workingSet
}

// partitionBytes is the working set of req's partition i, as admission
// reserves it.
func (e *Engine) partitionBytes(req *Request, i int) uint64 {
	n := len(req.Circuit.PK.H) + 1
	p := req.Partitions[i]
	if p.Assignment != nil {
		return e.workingSet(n, len(p.Assignment.Inputs), len(p.Assignment.Aux))
	}
	cs := req.Circuit.CS
	return e.workingSet(n, cs.NumInputs, cs.NumAux)
}

// memFitsLocked reports whether a partition of n bytes fits in what the
// host could map now (a.mu held). With nothing reserved it always does.
func (a *admission) memFitsLocked(n uint64) bool {
	if a.avail == nil || a.reserved == 0 {
		return true
	}
	avail, err := a.avail()
	if err != nil {
		return true // the budget alone, as without the reading
	}
	a.lastAvail = avail
	need := n
	if a.idle != nil {
		need -= min(need, a.idle())
	}
	// Partitions admitted and still taking their buffers map them after
	// this reading: counted as if mapped.
	return need+a.margin+a.unbacked <= avail
}

// backed ends what a partition admitted with n bytes counts as about to
// be mapped (unbacked): it has taken its buffers, or failed.
func (a *admission) backed(n uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.unbacked -= min(n, a.unbacked)
	close(a.changed)
	a.changed = make(chan struct{})
}

// fits reports whether n bytes can be reserved beside the parameters
// held now.
func (a *admission) fits(n uint64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.fitsLocked(n)
}

func (a *admission) fitsLocked(n uint64) bool { return a.keys <= a.budget && n <= a.budget-a.keys }

// holdKey counts what is on the host of pk's copy now (HostBytes: the
// pages given back to the devices' copies are not) against the budget
// until unholdKey, once however often it is called.
func (a *admission) holdKey(pk *params.ProvingKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.held[pk]; !ok {
		n := pk.HostBytes()
		a.held[pk] = n
		a.keys += n
	}
}

// unholdKey gives back what holdKey held for pk (nothing if it held
// nothing): a waiting partition may then fit.
func (a *admission) unholdKey(pk *params.ProvingKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, ok := a.held[pk]
	if !ok {
		return
	}
	delete(a.held, pk)
	a.keys -= min(n, a.keys)
	close(a.changed)
	a.changed = make(chan struct{})
}

// reserve blocks until n bytes fit in the budget or ctx ends.
func (a *admission) reserve(ctx context.Context, n uint64) error {
	a.mu.Lock()
	a.waiting++
	defer func() { a.waiting--; a.mu.Unlock() }()
	counted := false
	for {
		overBudget := a.keys+a.reserved+n > a.budget
		if !overBudget && a.memFitsLocked(n) {
			break
		}
		if !a.fitsLocked(n) {
			return fmt.Errorf("engine: a partition needs %s, more than memory.budget (%s) less the loaded parameters (%s)", units.Bytes(n), units.Bytes(a.budget), units.Bytes(a.keys))
		}
		var tick <-chan time.Time
		stop := func() bool { return false }
		if !overBudget { // the host's memory is short: look again soon
			if !counted {
				a.memWaits++
				counted = true
			}
			t := time.NewTimer(a.poll)
			tick, stop = t.C, t.Stop
		}
		ch := a.changed
		a.mu.Unlock()
		select {
		case <-ctx.Done():
			stop()
			a.mu.Lock()
			return ctx.Err()
		case <-ch:
		case <-tick:
		}
		stop()
		a.mu.Lock()
	}
	a.reserved += n
	a.unbacked += n
	a.peak = max(a.peak, a.reserved)
	return nil
}

// room is what the budget has left beside the reservations: what idle
// pooled buffers may hold.
func (a *admission) room() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.budget - min(a.budget, a.keys+a.reserved)
}

// hostFree is what the host could map now less the margin (all of it
// when the host's memory is not consulted).
func (a *admission) hostFree() uint64 {
	if a.avail == nil {
		return ^uint64(0)
	}
	avail, err := a.avail()
	if err != nil {
		return ^uint64(0)
	}
	return avail - min(avail, a.margin)
}

// hostRoom is room, bounded by what the host could map now less the
// margin: what buffers mapped ahead may take.
func (a *admission) hostRoom() uint64 {
	return min(a.room(), a.hostFree())
}

// poolMax resolves memory.pool_max ("auto": the budget).
func poolMax(m config.Memory, budget uint64) uint64 {
	if m.PoolMax.Auto() {
		return budget
	}
	return uint64(m.PoolMax)
}

func (a *admission) release(n uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n > a.reserved {
		panic("engine: admission released more than reserved")
	}
	a.reserved -= n
	close(a.changed)
	a.changed = make(chan struct{})
}

// admissionStats is the admission part of the status.
type admissionStats struct {
	Budget   uint64 `json:"budget_bytes"`
	Keys     uint64 `json:"parameters_bytes"` // held by the loaded parameters
	Reserved uint64 `json:"reserved_bytes"`
	Peak     uint64 `json:"peak_reserved_bytes"`
	Waiting  int    `json:"partitions_waiting"` // for room in the budget or the host's memory
	// MemoryWaits counts the partitions that waited for the host's memory
	// (beyond the budget's rule); HostAvailable is the last reading of it.
	MemoryWaits   int    `json:"host_memory_waits"`
	HostAvailable uint64 `json:"host_available_bytes"`
}

func (a *admission) stats() admissionStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return admissionStats{Budget: a.budget, Keys: a.keys, Reserved: a.reserved, Peak: a.peak, Waiting: a.waiting,
		MemoryWaits: a.memWaits, HostAvailable: a.lastAvail}
}

// hostWatch is how often the engine reads the host's free memory while
// its pool holds idle buffers (relieveHost).
const hostWatch = 50 * time.Millisecond

// relieveHost gives idle pooled buffers back when the host's free memory
// falls below memory.safety_margin: they are a cache, and the host's own
// buffers come first. Buffers mapped ahead after a load stop at the
// margin, but the host keeps allocating after them: bellperson copies ten
// partitions' a, b, c (64 GB at 2^26) once create_SRS has returned, and
// again before every call, beside what the last call left pooled. It frees
// up to twice the margin back (memory that has started to run short keeps
// doing so) and never while a partition admitted is still taking its
// buffers (it may be counting on the idle ones: admission.memFitsLocked).
// It returns the bytes freed.
func (e *Engine) relieveHost() uint64 {
	a := e.adm
	if a.avail == nil || e.pool.stats().Pooled == 0 {
		return 0
	}
	// The buffers are taken under a.mu (then the pool's lock, the order
	// memFitsLocked takes them in): no partition is admitted counting on
	// them meanwhile.
	a.mu.Lock()
	if a.unbacked > 0 {
		a.mu.Unlock()
		return 0
	}
	avail, err := a.avail()
	if err != nil || avail >= a.margin {
		a.mu.Unlock()
		return 0
	}
	bufs := e.pool.takeIdle(2*a.margin - avail)
	a.mu.Unlock()
	freed := e.pool.freeNow(bufs)
	if freed > 0 {
		e.log.Info("engine: idle buffers given back to the host, whose free memory fell below memory.safety_margin",
			"freed_bytes", freed, "host_available_bytes", avail, "safety_margin_bytes", a.margin)
	}
	return freed
}

// watchHost runs relieveHost every hostWatch until the engine closes.
func (e *Engine) watchHost() {
	t := time.NewTicker(hostWatch)
	defer t.Stop()
	for {
		select {
		case <-e.closing:
			return
		case <-t.C:
			e.relieveHost()
		}
	}
}
