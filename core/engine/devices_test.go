package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/backend/cuda"
	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/params"
)

// CUDA errors as libcuzk_cuda.so reports them (cuzk_cuda.h: return code
// CUZK_CUDA_ERR_CUDA + the cudaError_t), classified by the CUDA backend.
var (
	errIllegalAddress = &cuda.Error{Op: "msm", Msg: "an illegal memory access was encountered", Code: 1000 + 700}
	errOutOfMemory    = &cuda.Error{Op: "msm", Msg: "out of memory", Code: 1000 + 2}
)

// faultyBackend is the CPU backend that returns fault from its failAt-th
// G1 MSM (counting from 1; 0: never), and counts its calls and closes.
type faultyBackend struct {
	cpu.Backend
	name   string
	failAt int64
	fault  error
	calls  atomic.Int64 // G1 MSMs and H calls that reached the backend
	msms   atomic.Int64
	closes atomic.Int64
	gate   chan struct{} // when set, MSMs wait until it is closed
}

func (b *faultyBackend) Name() string { return b.name }

func (b *faultyBackend) H(a, bb, c []fr.Element) ([]fr.Element, error) {
	b.calls.Add(1)
	return b.Backend.H(a, bb, c)
}

func (b *faultyBackend) MSMG1(points []bls.G1Affine, scalars []fr.Element) (bls.G1Jac, msm.Stats, error) {
	b.calls.Add(1)
	if b.gate != nil {
		<-b.gate
	}
	if n := b.msms.Add(1); n == b.failAt {
		return bls.G1Jac{}, msm.Stats{}, b.fault
	}
	return b.Backend.MSMG1(points, scalars)
}

func (b *faultyBackend) Close() { b.closes.Add(1) }

// closerBackend has io.Closer's Close.
type closerBackend struct {
	cpu.Backend
	closes atomic.Int64
}

func (b *closerBackend) Name() string { return "closer" }
func (b *closerBackend) Close() error { b.closes.Add(1); return nil }

func TestStickyErrorTakesDeviceOut(t *testing.T) {
	f := testCircuit(t)
	bad := &faultyBackend{name: "gpu-bad", failAt: 1, fault: errIllegalAddress}
	good := &faultyBackend{name: "gpu-good"}
	e := newEngine(t, oneWorker(testConfig()), Options{Devices: []backend.Backend{bad, good}})

	// The partition in flight on the device fails with the CUDA error.
	req := f.request("", 2, Normal)
	req.Placement = OnDevice(0)
	_, _, err := e.Prove(context.Background(), req)
	require.ErrorIs(t, err, backend.ErrDeviceFailed)
	var ce *cuda.Error
	require.ErrorAs(t, err, &ce)
	require.Equal(t, 700, ce.CUDA())
	require.Contains(t, err.Error(), "gpu-bad")
	require.Contains(t, err.Error(), "illegal memory access")

	st := e.Status()
	require.False(t, st.Devices[0].Healthy)
	require.Contains(t, st.Devices[0].Error, "illegal memory access")
	require.True(t, st.Devices[1].Healthy)
	require.Empty(t, st.Devices[1].Error)
	text, err := e.MetricsText()
	require.NoError(t, err)
	require.Contains(t, text, `cuzk_device_healthy{device="gpu-bad"} 0`)
	require.Contains(t, text, `cuzk_device_healthy{device="gpu-good"} 1`)
	js, err := e.StatusJSON()
	require.NoError(t, err)
	require.Contains(t, string(js), `"error": "groth16: msm h: cuda: msm: an illegal memory access`)

	// A request pinned to it is refused at once, naming the device.
	calls := bad.calls.Load()
	pinned := f.request("", 1, Normal)
	pinned.Placement = OnDevice(0)
	_, err = e.Submit(pinned)
	require.ErrorIs(t, err, backend.ErrDeviceFailed)
	require.Contains(t, err.Error(), "device gpu-bad (index 0) is out of service")

	// Later requests go to the device in service; none reaches the failed
	// one.
	for k := 0; k < 2; k++ {
		req := f.request("", 4, Normal)
		res := f.proveChecked(t, e, req)
		for _, r := range res.Partitions {
			require.Equal(t, "gpu-good", r.Device)
		}
	}
	require.Equal(t, calls, bad.calls.Load(), "no call reaches the failed device")

	e.Close()
	e.Close()
	require.EqualValues(t, 1, bad.closes.Load())
	require.EqualValues(t, 1, good.closes.Load())
}

func TestStickyErrorMidJob(t *testing.T) {
	f := testCircuit(t)
	bad := &faultyBackend{name: "gpu-bad", failAt: 2, fault: errIllegalAddress}
	good := &faultyBackend{name: "gpu-good"}
	cfg := testConfig()
	cfg.GPUs.WorkersPerDevice = 2
	e := newEngine(t, cfg, Options{Devices: []backend.Backend{bad, good}})

	// Unpinned partitions spread over both devices; the one in flight on
	// the device that fails fails the job with the device's reason, or the
	// failed device never got one and the job succeeds.
	for k := 0; k < 3; k++ {
		req := f.request("", 8, Normal)
		id, err := e.Submit(req)
		require.NoError(t, err)
		res, err := e.Await(id, 30*time.Second)
		require.NoError(t, err, "the job ends")
		if res.Err != nil {
			require.ErrorIs(t, res.Err, backend.ErrDeviceFailed)
			require.Contains(t, res.Err.Error(), "gpu-bad")
			continue
		}
		f.checkProofs(t, req, res)
	}
	require.False(t, e.Status().Devices[0].Healthy, "the failed device took partitions before it failed")
	calls := bad.calls.Load()
	res := f.proveChecked(t, e, f.request("", 4, Normal))
	for _, r := range res.Partitions {
		require.Equal(t, "gpu-good", r.Device)
	}
	require.Equal(t, calls, bad.calls.Load())
}

func TestNoDeviceInService(t *testing.T) {
	f := testCircuit(t)
	// the device fails once both jobs are in (a loaded machine failed it
	// before the second was submitted, which Submit then refused)
	bad := &faultyBackend{name: "gpu-bad", failAt: 1, fault: errIllegalAddress, gate: make(chan struct{})}
	var once sync.Once
	open := func() { once.Do(func() { close(bad.gate) }) }
	t.Cleanup(open) // a failed require below must not leave the workers waiting
	cfg := testConfig()
	cfg.GPUs.WorkersPerDevice = 1
	e := newEngine(t, cfg, Options{Devices: []backend.Backend{bad}})

	// Two jobs at once: the second's partitions wait in the queue when
	// the only device fails, and fail rather than wait for ever.
	var ids []string
	for k := 0; k < 2; k++ {
		id, err := e.Submit(f.request("", 4, Normal))
		require.NoError(t, err)
		ids = append(ids, id)
	}
	open()
	for _, id := range ids {
		res, err := e.Await(id, 30*time.Second)
		require.NoError(t, err, "job %s ends", id)
		require.ErrorIs(t, res.Err, backend.ErrDeviceFailed, "job %s", id)
		require.Contains(t, res.Err.Error(), "gpu-bad")
	}
	_, err := e.Submit(f.request("", 1, Normal))
	require.ErrorIs(t, err, backend.ErrDeviceFailed)
	require.Contains(t, err.Error(), "no device in service")
	require.Contains(t, err.Error(), "gpu-bad")
	eventually(t, func() bool { return e.Status().Memory.Reserved == 0 }, "partitions still running release their memory")
}

func TestOrdinaryErrorKeepsDevice(t *testing.T) {
	f := testCircuit(t)
	for _, fault := range []error{errOutOfMemory, errInjected, &cuda.Error{Op: "ntt", Msg: "size", Code: 1}} {
		be := &faultyBackend{name: "gpu0", failAt: 1, fault: fault}
		e := newEngine(t, oneWorker(testConfig()), Options{Devices: []backend.Backend{be}})
		_, _, err := e.Prove(context.Background(), f.request("", 1, Normal))
		require.ErrorIs(t, err, fault)
		require.False(t, errors.Is(err, backend.ErrDeviceFailed), "%v", err)
		st := e.Status()
		require.True(t, st.Devices[0].Healthy, "%v", fault)
		require.Empty(t, st.Devices[0].Error)
		f.proveChecked(t, e, f.request("", 2, Normal))
		e.Close()
		require.EqualValues(t, 1, be.closes.Load())
	}
}

func TestCloseClosesEachBackendOnce(t *testing.T) {
	a := &closerBackend{}
	b := &faultyBackend{name: "b"}
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{a, b}})
	e.Close()
	e.Close()
	require.EqualValues(t, 1, a.closes.Load())
	require.EqualValues(t, 1, b.closes.Load())
}

// checkerOf is the device's checker behind the engine's.
func checkerOf(c params.SubgroupChecker) params.SubgroupChecker {
	switch c := c.(type) {
	case deviceChecker:
		return c.c
	case rangeDeviceChecker:
		return c.c
	}
	return c
}

func TestFailedDeviceChecksNoSubgroup(t *testing.T) {
	dev := &keyDevice{}
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{dev}})
	require.Same(t, dev, checkerOf(e.SubgroupChecker()))
	_, err := e.devices[0].lock.run(0, func(int64) error { return errIllegalAddress })
	require.ErrorIs(t, err, backend.ErrDeviceFailed)
	require.Nil(t, e.SubgroupChecker(), "a parameter load does not use a device out of service")
}

// reportingBackend reports device memory, streamed points and prefetches
// as a capped GPU does.
type reportingBackend struct{ cpu.Backend }

func (reportingBackend) Name() string { return "gpu-capped" }
func (b *reportingBackend) Capabilities() backend.Capabilities {
	c := b.Backend.Capabilities()
	c.Report = b
	return c
}
func (reportingBackend) DeviceMemory() (uint64, uint64, uint64, error) {
	return 3 << 30, 5 << 30, 15 << 30, nil
}
func (reportingBackend) Transfers() backend.Transfers {
	return backend.Transfers{StreamedBytes: 7 << 30, StreamedCopy: 2 * time.Second, StreamedFileRead: 1500 * time.Millisecond,
		StreamedFileMapped: 6 << 30,
		Chunks:             backend.StreamChunks{Streamed: 40, StagedG1: 9, StagedG2: 3},
		Prefetches:         backend.Prefetches{Whole: 1, AOnly: 4, Refused: 2, Last: backend.PrefetchRoom{Held: 20 << 30, Pool: 4 << 30, Query: 2 << 30, Cap: 23 << 30}}}
}

// The status carries each device's memory count, streamed bytes and copy
// time, and its a, b, c prefetches by outcome, under their JSON names.
func TestStatusReportsDeviceCounts(t *testing.T) {
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{&reportingBackend{}}})
	st := e.Status()
	require.Len(t, st.Devices, 1)
	d := st.Devices[0]
	require.EqualValues(t, 15<<30, d.MemoryCap)
	require.Equal(t, backend.Prefetches{Whole: 1, AOnly: 4, Refused: 2},
		backend.Prefetches{Whole: d.PrefetchWhole, AOnly: d.PrefetchAOnly, Refused: d.PrefetchRefused})
	js, err := json.Marshal(d)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(js, &m))
	for k, v := range map[string]float64{
		"device_memory_held_bytes": 3 << 30, "device_memory_peak_bytes": 5 << 30, "device_memory_cap_bytes": 15 << 30,
		"device_streamed_bytes": 7 << 30, "device_streamed_copy_seconds": 2, "device_streamed_file_read_seconds": 1.5,
		"device_streamed_file_mapped_bytes": 6 << 30,
		"device_streamed_chunks":            40, "device_staged_chunks_g1": 9, "device_staged_chunks_g2": 3,
		"device_prefetch_abc": 1, "device_prefetch_a_alone": 4, "device_prefetch_refused": 2,
		"device_prefetch_last_held_bytes": 20 << 30, "device_prefetch_last_pool_bytes": 4 << 30,
		"device_prefetch_last_query_bytes": 2 << 30,
	} {
		require.Equal(t, v, m[k], k)
	}
}

// failingChecker is a device whose subgroup check fails with err, whole
// or range by range.
type failingChecker struct {
	keyDevice
	err error
}

func (f *failingChecker) Capabilities() backend.Capabilities {
	c := f.keyDevice.Capabilities()
	c.Subgroup = f
	return c
}

func (f *failingChecker) CheckSubgroupG1([]bls.G1Affine) (int, error) { return -1, f.err }
func (f *failingChecker) CheckSubgroupG2([]bls.G2Affine) (int, error) { return -1, f.err }
func (f *failingChecker) BeginG1([]bls.G1Affine) params.SectionCheck  { return failingSection{f.err} }
func (f *failingChecker) BeginG2([]bls.G2Affine) params.SectionCheck  { return failingSection{f.err} }

type failingSection struct{ err error }

func (s failingSection) Check(int, int) (int, error) { return -1, s.err }
func (s failingSection) Fill(int, int) error         { return s.err }
func (failingSection) Done(bool)                     {}

// A sticky error met by a device's subgroup check (a parameter load's,
// outside any partition) takes the device out of service as a partition's
// would, whole or range by range; an ordinary one (out of memory) fails
// the check only.
func TestSubgroupCheckErrorTakesDeviceOut(t *testing.T) {
	for _, ranged := range []bool{false, true} {
		for _, fault := range []error{errOutOfMemory, errIllegalAddress} {
			dev := &failingChecker{err: fault}
			e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{dev}})
			c := e.SubgroupChecker()
			require.Same(t, dev, checkerOf(c))
			var err error
			if ranged {
				rc, ok := c.(params.RangeChecker)
				require.True(t, ok, "a range checker stays one")
				s := rc.BeginG1(make([]bls.G1Affine, 4))
				_, err = s.Check(0, 4)
				s.Done(false)
			} else {
				_, err = c.CheckSubgroupG2(make([]bls.G2Affine, 4))
			}
			require.ErrorIs(t, err, fault)
			sticky := fault == errIllegalAddress
			st := e.Status()
			require.Equal(t, !sticky, st.Devices[0].Healthy, "%v, ranged %v", fault, ranged)
			if sticky {
				require.Contains(t, st.Devices[0].Error, "illegal memory access")
				require.Nil(t, e.SubgroupChecker())
				_, _, err := e.Prove(context.Background(), testCircuit(t).request("", 1, Normal))
				require.ErrorIs(t, err, backend.ErrDeviceFailed, "no device left in service")
			}
			e.Close()
		}
	}
}

// TestCPUFallbackSaysWhy: the CPU fallback's status carries the reason no
// GPU proves; it is a warning only where a GPU is seen (NVML, or the
// NVIDIA driver) or a CUDA library file was found and did not load, else
// said at debug: a CPU host's every process (each test of make test)
// printed it.
func TestCPUFallbackSaysWhy(t *testing.T) {
	saved := gpuPresent
	t.Cleanup(func() { gpuPresent = saved })
	for _, c := range []struct {
		present bool
		nvml    int
		lib     string
		warn    bool
	}{{false, 0, "", false}, {false, 0, "libcuzk_cuda.so", false}, {true, 0, "", true}, {false, 1, "", true},
		{false, 0, "/nowhere/libcuzk_cuda.so", true}} {
		gpuPresent = func() bool { return c.present }
		cfg := testConfig()
		cfg.GPUs.CUDALib = c.lib
		var log bytes.Buffer
		opt := Options{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))}
		if c.nvml > 0 {
			opt.DiscoverGPUs = func() ([]backend.GPU, error) { return []backend.GPU{{Index: 0, Name: "NVIDIA H200"}}, nil }
		}
		e, err := New(cfg, opt)
		require.NoError(t, err)
		st := e.Status()
		e.Close()
		require.Len(t, st.Devices, 1)
		require.Equal(t, "cpu", st.Devices[0].Kind)
		require.NotEmpty(t, st.Devices[0].Reason, "the reason, from the CUDA library search")
		if c.lib == "" {
			require.Contains(t, st.Devices[0].Reason, "no CUDA library found")
		}
		require.Equal(t, c.warn, strings.Contains(log.String(), "level=WARN msg=\"no usable GPU; proving on the CPU backend\""), "%+v: %s", c, log.String())
	}
}
