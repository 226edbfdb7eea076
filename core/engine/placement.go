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

// placer routes partitions to the devices: it checks a request's
// placement against them, queues a synthesized partition for its pinned
// device or for any (the shared queue), and hands each device's workers
// their next partition. It holds no lock: its queues are channels, the
// devices' health their interlocks'.
type placer struct {
	devices []*device
	byIndex map[int]*device // the devices a Placement can name
	shared  chan *task      // partitions any device may take
	closing <-chan struct{} // closed when the engine closes
	// drop ends a partition taken as the engine closed (finishTask)
	drop func(*task, error)
}

// newPlacer routes to devices, giving each that can be pinned a queue of
// its own; every queue holds at most depth partitions.
func newPlacer(devices []*device, depth int, closing <-chan struct{}, drop func(*task, error)) *placer {
	p := &placer{devices: devices, byIndex: map[int]*device{}, shared: make(chan *task, depth), closing: closing, drop: drop}
	for _, d := range devices {
		if d.index != noCPUIndex {
			d.q = make(chan *task, depth)
			p.byIndex[d.index] = d
		}
	}
	return p
}

// check validates a request's placement against the devices and refuses
// one that no device in service may prove.
func (p *placer) check(pl Placement) error {
	i, ok := pl.Device()
	if !ok {
		return p.checkInService(pl)
	}
	if _, found := p.byIndex[i]; found {
		return p.checkInService(pl)
	}
	if len(p.byIndex) == 0 {
		return fmt.Errorf("%w: index %d, but this host has no GPU (the engine proves on the CPU, which only an unpinned request reaches)", ErrNoDevice, i)
	}
	idx := make([]int, 0, len(p.byIndex))
	for k := range p.byIndex {
		idx = append(idx, k)
	}
	sort.Ints(idx)
	return fmt.Errorf("%w: index %d, the engine has %d device(s) with indexes %v", ErrNoDevice, i, len(idx), idx)
}

// checkRows refuses partitions of n rows when a device cannot run them
// within its memory cap (Capabilities.Cap), with that device's numbers:
// any device may take any partition from the shared queue, so each must
// fit it. Every device then plans its resident sets for that size.
func (p *placer) checkRows(n int) error {
	for _, d := range p.devices {
		if c := d.caps.Cap; c != nil {
			if err := c.CheckRows(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// queueFor is the queue a synthesized partition waits in for a device:
// its pinned device's own queue, or the shared one.
func (p *placer) queueFor(t *task) chan *task {
	if i, ok := t.job.req.Placement.Device(); ok {
		return p.byIndex[i].q
	}
	return p.shared
}

// queues lists the shared queue and each device's own.
func (p *placer) queues() []chan *task {
	qs := []chan *task{p.shared}
	for _, d := range p.devices {
		if d.q != nil {
			qs = append(qs, d.q)
		}
	}
	return qs
}

// A device goes out of service when its backend returns an error wrapping
// backend.ErrDeviceFailed (the CUDA backend does for a sticky CUDA error,
// after which every call on the device fails the same way until the
// process ends). The partition that met the error fails with it; from then
// on the device's workers leave the shared queue to the devices still in
// service, fail the partitions pinned to it at once, and Submit refuses
// requests pinned to it. When no device is left in service every request
// fails, with each device's reason.

// inService reports whether a device still takes work.
func (p *placer) inService() bool {
	for _, d := range p.devices {
		if d.lock.failed() == nil {
			return true
		}
	}
	return false
}

// checkInService refuses a request that no device in service may prove:
// one pinned to a device out of service, or any when every device is.
func (p *placer) checkInService(pl Placement) error {
	if i, ok := pl.Device(); ok {
		if d := p.byIndex[i]; d != nil {
			return d.outOfService()
		}
		return nil
	}
	if p.inService() {
		return nil
	}
	errs := make([]error, 0, len(p.devices))
	for _, d := range p.devices {
		errs = append(errs, d.outOfService())
	}
	return fmt.Errorf("engine: no device in service: %w", errors.Join(errs...))
}

// take returns the next partition for a worker of d, or nil when the
// engine closes: pinned partitions (d.q, nil for the CPU) and shared ones
// in the order they become ready; when both are, either. A device out of
// service takes shared partitions only when no device is in service (to
// fail them); one taken as the device failed goes back to the queue.
func (p *placer) take(d *device) *task {
	for {
		shared := p.shared
		if d.lock.failed() != nil && p.inService() {
			shared = nil
		}
		var t *task
		select {
		case t = <-d.q:
			return t
		case t = <-shared:
		case <-p.closing:
			return nil
		}
		if d.lock.failed() == nil || !p.inService() {
			return t
		}
		select {
		case p.shared <- t:
		case <-p.closing:
			p.drop(t, ErrClosed)
			return nil
		}
	}
}
