package engine

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/internal/clock"
)

// twoDevices is an engine over two fake devices (indexes 0 and 1), two
// workers each; onH0 is called inside device 0's region.
func twoDevices(t *testing.T) (*Engine, *hookBackend, *hookBackend, *atomic.Int64) {
	var h0 atomic.Int64
	be0 := &hookBackend{name: "fake0", onH: func() { h0.Add(1) }}
	be1 := &hookBackend{name: "fake1"}
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{be0, be1}})
	return e, be0, be1, &h0
}

func pinned(f fixture, id string, n int, p Priority, dev int) Request {
	req := f.request(id, n, p)
	req.Placement = OnDevice(dev)
	return req
}

func devicesOf(res Result) map[string]int {
	out := map[string]int{}
	for _, p := range res.Partitions {
		out[fmt.Sprintf("%s/%d", p.Device, p.DeviceIndex)]++
	}
	return out
}

func TestPlacementValue(t *testing.T) {
	var zero Placement
	_, ok := zero.Device()
	require.False(t, ok, "the zero value is any device")
	require.Equal(t, AnyDevice, zero)
	require.Equal(t, AnyDevice, OnDevice(-1))
	i, ok := OnDevice(0).Device()
	require.True(t, ok)
	require.Equal(t, 0, i)
	require.Equal(t, "device 7", OnDevice(7).String())
	require.Equal(t, "any device", zero.String())
}

func TestPinnedPartitionsRunOnlyOnTheirDevice(t *testing.T) {
	f := testCircuit(t)
	e, _, _, _ := twoDevices(t)
	for dev, name := range []string{"fake0", "fake1"} {
		req := pinned(f, "", 6, Normal, dev)
		res := f.proveChecked(t, e, req)
		require.Equal(t, map[string]int{fmt.Sprintf("%s/%d", name, dev): 6}, devicesOf(res))
	}
	st := e.Status()
	require.Len(t, st.Devices, 2)
	for i, d := range st.Devices {
		require.Equal(t, i, d.Index)
		require.EqualValues(t, 6, d.Partitions, "device %d", i)
		require.Zero(t, d.Failed)
		require.Zero(t, d.Pinned)
	}
	js, err := e.StatusJSON()
	require.NoError(t, err)
	require.Contains(t, string(js), `"index": 1`)
	require.Contains(t, string(js), `"partitions": 6`)
}

func TestUnpinnedSpreadsOverDevices(t *testing.T) {
	f := testCircuit(t)
	e, be0, _, h0 := twoDevices(t)
	// Device 0 holds the first partition it takes; device 1 proves the
	// rest meanwhile, so both are used whatever the timing.
	open := be0.setGate(t)
	req := f.request("spread", 8, Normal)
	id, err := e.Submit(req)
	require.NoError(t, err)
	eventually(t, func() bool { return h0.Load() >= 1 && e.Status().Devices[1].Partitions >= 1 }, "both devices take partitions")
	open()
	res, err := e.Await(id, 0)
	require.NoError(t, err)
	f.checkProofs(t, req, res)
	used := devicesOf(res)
	require.Len(t, used, 2, "%v", used)
	require.Equal(t, 8, used["fake0/0"]+used["fake1/1"])
}

func TestPlacementRefusedAtSubmit(t *testing.T) {
	f := testCircuit(t)
	e, _, _, _ := twoDevices(t)
	_, err := e.Submit(pinned(f, "", 1, Normal, 2))
	require.ErrorIs(t, err, ErrNoDevice)
	require.ErrorContains(t, err, "index 2, the engine has 2 device(s) with indexes [0 1]")
	_, err = e.Submit(pinned(f, "", 1, Normal, 1000))
	require.ErrorContains(t, err, "index 1000")

	// The CPU fallback is not a GPU: it cannot be pinned, any device works.
	cpuOnly := newEngine(t, testConfig(), Options{})
	require.Equal(t, -1, cpuOnly.Status().Devices[0].Index)
	_, err = cpuOnly.Submit(pinned(f, "", 1, Normal, 0))
	require.ErrorIs(t, err, ErrNoDevice)
	require.ErrorContains(t, err, "no GPU")
	f.proveChecked(t, cpuOnly, f.request("", 1, Normal))
}

func TestPinnedNotBlockedBehindAnotherDevice(t *testing.T) {
	f := testCircuit(t)
	e, be0, _, h0 := twoDevices(t)
	open := be0.setGate(t)
	// Device 0: one partition inside its interlock, held there, and more
	// waiting for it.
	busy := pinned(f, "busy", 4, Normal, 0)
	busyID, err := e.Submit(busy)
	require.NoError(t, err)
	eventually(t, func() bool { return h0.Load() >= 1 }, "device 0 busy")
	// A later, lower-priority request pinned to device 1 finishes anyway.
	res := f.proveChecked(t, e, pinned(f, "other", 2, Low, 1))
	require.Equal(t, map[string]int{"fake1/1": 2}, devicesOf(res))
	require.Zero(t, e.Status().Devices[0].Partitions, "device 0 still held")
	open()
	res, err = e.Await(busyID, 0)
	require.NoError(t, err)
	f.checkProofs(t, busy, res)
	require.Equal(t, map[string]int{"fake0/0": 4}, devicesOf(res))
}

// waitLock is a mutex that counts the callers waiting for it.
type waitLock struct {
	mu      sync.Mutex
	waiting atomic.Int64
	n       atomic.Int64
}

func (l *waitLock) Lock() {
	l.waiting.Add(1)
	l.mu.Lock()
	l.waiting.Add(-1)
	l.n.Add(1)
}

func (l *waitLock) Unlock() { l.mu.Unlock() }

func TestSharedInterlockSerializesOnlyItsCallers(t *testing.T) {
	f := testCircuit(t)
	e, be0, _, h0 := twoDevices(t)
	open := be0.setGate(t)
	m := &waitLock{}
	// a holds m inside device 0's region.
	a := pinned(f, "a", 1, Normal, 0)
	a.Interlock = m
	_, err := e.Submit(a)
	require.NoError(t, err)
	eventually(t, func() bool { return h0.Load() == 1 }, "a inside device 0's region")
	// b shares m: it waits for a although its device is idle.
	b := pinned(f, "b", 1, Normal, 1)
	b.Interlock = m
	_, err = e.Submit(b)
	require.NoError(t, err)
	eventually(t, func() bool { return m.waiting.Load() == 1 }, "b waits for m")
	// c passes no lock, d a lock of its own: neither waits for m.
	c := f.proveChecked(t, e, pinned(f, "c", 2, Normal, 1))
	require.Equal(t, map[string]int{"fake1/1": 2}, devicesOf(c))
	d := pinned(f, "d", 3, Normal, 1)
	d.Interlock = &waitLock{}
	f.proveChecked(t, e, d)
	require.EqualValues(t, 1, m.waiting.Load(), "b still waits for a")
	require.EqualValues(t, 1, m.n.Load())
	require.Zero(t, e.Status().Devices[0].Partitions, "a still holds device 0")
	open()
	for _, req := range []Request{a, b} {
		res, err := e.Await(req.ID, 0)
		require.NoError(t, err)
		f.checkProofs(t, req, res)
	}
	require.EqualValues(t, 2, m.n.Load(), "m held once per partition of a and b")
}

// placerOver is a placer over devices of the given indexes (noCPUIndex:
// the CPU), queues of depth 4, and the channel that closes it.
func placerOver(idx ...int) (*placer, chan struct{}) {
	var devs []*device
	for _, i := range idx {
		devs = append(devs, &device{name: fmt.Sprintf("d%d", i), index: i, lock: newInterlock(clock.Or(nil))})
	}
	closing := make(chan struct{})
	return newPlacer(devs, 4, closing, func(*task, error) {}), closing
}

func failDevice(t *testing.T, d *device) {
	t.Helper()
	_, err := d.lock.run(0, func(int64) error { return errIllegalAddress })
	require.ErrorIs(t, err, backend.ErrDeviceFailed)
}

// A placement names a device of the engine, one in service, or any while
// one is in service; the refusals say which devices there are and why.
func TestPlacerChecksPlacements(t *testing.T) {
	p, _ := placerOver(0, 2)
	require.NoError(t, p.check(AnyDevice))
	require.NoError(t, p.check(OnDevice(2)))
	err := p.check(OnDevice(1))
	require.ErrorIs(t, err, ErrNoDevice)
	require.ErrorContains(t, err, "indexes [0 2]")
	cpuOnly, _ := placerOver(noCPUIndex)
	require.ErrorContains(t, cpuOnly.check(OnDevice(0)), "has no GPU")
	require.NoError(t, cpuOnly.check(AnyDevice))

	failDevice(t, p.devices[1])
	require.ErrorContains(t, p.check(OnDevice(2)), "device d2 (index 2) is out of service")
	require.NoError(t, p.check(OnDevice(0)))
	require.NoError(t, p.check(AnyDevice), "device 0 still serves")
	failDevice(t, p.devices[0])
	err = p.check(AnyDevice)
	require.ErrorContains(t, err, "no device in service")
	require.ErrorContains(t, err, "device d0 (index 0)")
	require.ErrorContains(t, err, "device d2 (index 2)")
}

// A pinned partition waits in its device's queue, any other in the shared
// one; a device out of service leaves the shared queue to the devices in
// service, and takes from it again once none is.
func TestPlacerRoutesAndTakes(t *testing.T) {
	p, closing := placerOver(0, 1)
	d0, d1 := p.devices[0], p.devices[1]
	pinned := &task{job: &job{req: Request{Placement: OnDevice(1)}}}
	anyDev := &task{job: &job{req: Request{}}}
	require.Equal(t, d1.q, p.queueFor(pinned))
	require.Equal(t, p.shared, p.queueFor(anyDev))
	require.Len(t, p.queues(), 3, "the shared queue and one per device")

	p.queueFor(pinned) <- pinned
	require.Same(t, pinned, p.take(d1))
	p.queueFor(anyDev) <- anyDev
	require.Same(t, anyDev, p.take(d0))

	failDevice(t, d0)
	p.shared <- anyDev
	took := make(chan *task, 1)
	go func() { took <- p.take(d0) }()
	select {
	case got := <-took:
		t.Fatalf("a device out of service took %v while another serves", got)
	case <-time.After(50 * time.Millisecond):
	}
	require.Same(t, anyDev, p.take(d1), "the device in service takes it")
	close(closing)
	require.Nil(t, <-took, "closing ends the wait")
	require.Nil(t, p.take(d1))

	q, _ := placerOver(0, 1)
	failDevice(t, q.devices[0])
	failDevice(t, q.devices[1])
	q.shared <- anyDev
	require.Same(t, anyDev, q.take(q.devices[0]), "with no device in service, a device takes it to fail it")
}

// capBackend refuses partitions of more than max rows, as a GPU under a
// device-memory cap does, and records the sizes it was told to plan for.
type capBackend struct {
	cpu.Backend
	name    string
	max     int
	planned []int
}

func (b *capBackend) Name() string { return b.name }

func (b *capBackend) Capabilities() backend.Capabilities {
	c := b.Backend.Capabilities()
	c.Cap = b
	return c
}

func (b *capBackend) CheckRows(rows int) error {
	if rows > b.max {
		return fmt.Errorf("%d rows, room for %d: %w", rows, b.max, backend.ErrDeviceMemory)
	}
	b.planned = append(b.planned, rows)
	return nil
}

// A request whose partitions no capped device can run is refused at
// Submit, with the device's numbers; one that fits is planned for on
// every device and proved.
func TestSubmitChecksTheDeviceMemoryCap(t *testing.T) {
	f := testCircuit(t)
	n := len(f.circuit.PK.H) + 1
	small, roomy := &capBackend{name: "small", max: n - 1}, &capBackend{name: "roomy", max: n}
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{roomy, small}})
	_, err := e.Submit(f.request("", 2, Normal))
	require.ErrorIs(t, err, ErrTooLarge)
	require.ErrorIs(t, err, backend.ErrDeviceMemory)
	require.ErrorContains(t, err, fmt.Sprintf("%d rows, room for %d", n, n-1))

	small.max = n
	f.proveChecked(t, e, f.request("", 2, Normal))
	require.Equal(t, []int{n, n}, roomy.planned, "planned for at each Submit that reached it")
	require.Equal(t, []int{n}, small.planned)
}
