package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/cuzk/cuzk/core/config"
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
type admission struct {
	mu       sync.Mutex
	budget   uint64
	keys     uint64 // held by loaded parameters (hold)
	reserved uint64
	peak     uint64
	waiting  int
	changed  chan struct{} // closed and replaced on every release
}

func newAdmission(budget uint64) *admission {
	return &admission{budget: budget, changed: make(chan struct{})}
}

// fits reports whether n bytes can be reserved beside the parameters
// held now.
func (a *admission) fits(n uint64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.fitsLocked(n)
}

func (a *admission) fitsLocked(n uint64) bool { return a.keys <= a.budget && n <= a.budget-a.keys }

// hold counts n bytes of loaded parameters against the budget; unhold
// gives them back (a waiting partition may then fit).
func (a *admission) hold(n uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keys += n
}

func (a *admission) unhold(n uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keys -= min(n, a.keys)
	close(a.changed)
	a.changed = make(chan struct{})
}

// reserve blocks until n bytes fit in the budget or ctx ends.
func (a *admission) reserve(ctx context.Context, n uint64) error {
	a.mu.Lock()
	a.waiting++
	defer func() { a.waiting--; a.mu.Unlock() }()
	for a.keys+a.reserved+n > a.budget {
		if !a.fitsLocked(n) {
			return fmt.Errorf("engine: a partition needs %s, more than memory.budget (%s) less the loaded parameters (%s)", units.Bytes(n), units.Bytes(a.budget), units.Bytes(a.keys))
		}
		ch := a.changed
		a.mu.Unlock()
		select {
		case <-ctx.Done():
			a.mu.Lock()
			return ctx.Err()
		case <-ch:
		}
		a.mu.Lock()
	}
	a.reserved += n
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
	Waiting  int    `json:"partitions_waiting"` // for room in the budget
}

func (a *admission) stats() admissionStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return admissionStats{Budget: a.budget, Keys: a.keys, Reserved: a.reserved, Peak: a.peak, Waiting: a.waiting}
}
