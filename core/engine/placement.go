package engine

import (
	"errors"
	"fmt"
	"sort"
)

// Placement says which device may prove a request's partitions. The zero
// value lets any device take them (requests built without a placement
// spread over all devices); OnDevice pins them to one.
//
// A device's index is the GPU's CUDA ordinal (gpus.devices may leave some
// ordinals out: those are not devices of the engine), or, for devices given
// through Options.Devices, the position in that list. The CPU backend the
// engine falls back to when no GPU can be used has no index: a pinned
// request is refused there, since pinning asks for a GPU (supraseal-c2's
// gpu_index) and the CPU is not one.
//
// Pinned partitions wait in their device's own queue, unpinned ones in the
// shared queue; a device's workers take from both, so a pinned partition
// never waits behind another device's interlock. Both queues hold at most
// synthesis.queue_depth partitions, and a synthesis goroutine that finds
// its queue full waits (backpressure), as before.
type Placement struct {
	// pin is the device index plus one: 0 (the zero value) is any device.
	pin int
}

// AnyDevice spreads a request's partitions over all devices.
var AnyDevice = Placement{}

// OnDevice pins a request's partitions to the device with index i; a
// negative i means any device.
func OnDevice(i int) Placement {
	if i < 0 {
		return AnyDevice
	}
	return Placement{pin: i + 1}
}

// Device returns the index of the pinned device; ok is false for any
// device.
func (p Placement) Device() (index int, ok bool) { return p.pin - 1, p.pin > 0 }

func (p Placement) String() string {
	if i, ok := p.Device(); ok {
		return fmt.Sprintf("device %d", i)
	}
	return "any device"
}

// ErrNoDevice is returned by Submit for a request pinned to an index that
// names no device of the engine.
var ErrNoDevice = errors.New("engine: no such device")

// noCPUIndex is the index of the CPU fallback device: it cannot be pinned.
const noCPUIndex = -1

// checkPlacement validates a request's placement against the devices and
// refuses one that no device in service may prove (devices.go).
func (e *Engine) checkPlacement(p Placement) error {
	i, ok := p.Device()
	if !ok {
		return e.checkInService(p)
	}
	if _, found := e.byIndex[i]; found {
		return e.checkInService(p)
	}
	if len(e.byIndex) == 0 {
		return fmt.Errorf("%w: index %d, but this host has no GPU (the engine proves on the CPU, which only an unpinned request reaches)", ErrNoDevice, i)
	}
	idx := make([]int, 0, len(e.byIndex))
	for k := range e.byIndex {
		idx = append(idx, k)
	}
	sort.Ints(idx)
	return fmt.Errorf("%w: index %d, the engine has %d device(s) with indexes %v", ErrNoDevice, i, len(idx), idx)
}

// queueFor is the queue a synthesized partition waits in for a device:
// its pinned device's own queue, or the shared one.
func (e *Engine) queueFor(t *task) chan *task {
	if i, ok := t.job.req.Placement.Device(); ok {
		return e.byIndex[i].q
	}
	return e.devQ
}
