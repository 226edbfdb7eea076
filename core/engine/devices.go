package engine

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cuda"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/groth16"
)

// device is a GPU or the CPU, with its interlock and workers.
type device struct {
	name    string
	kind    string // "cpu", "gpu" or "given" (Options.Devices)
	model   string // a GPU's, from its driver
	reason  string // the CPU fallback's: why no GPU proves
	index   int    // what Placement names (placement.go); noCPUIndex for the CPU
	be      backend.Backend
	caps    backend.Capabilities // be's, read once (deviceSetup.device)
	plan    *groth16.Plan        // where each stage of a partition runs (worker.go)
	lock    *interlock
	workers int
	// q holds the partitions pinned to this device (the placer's shared
	// queue holds the others); nil for the CPU, which cannot be pinned.
	q chan *task

	// partitions proved here, and partitions that reached a worker here
	// and failed (or were cancelled)
	proved, failed atomic.Int64
}

// cudaErrorNoDevice is the CUDA runtime's error for a machine without a
// CUDA device.
const cudaErrorNoDevice = 100

// deviceSetup makes the engine's devices (New): from gpus.*, with cpu for
// the B_G2 MSMs after a GPU's region, or as the device when no GPU serves.
type deviceSetup struct {
	gpus  config.GPUs
	cpu   backend.Backend
	clock Clock
	log   *slog.Logger
}

// device makes a device of be with its plan and interlock.
func (s *deviceSetup) device(name, kind string, index int, be backend.Backend, plan *groth16.Plan, workers int) *device {
	return &device{name: name, kind: kind, index: index, be: be, caps: be.Capabilities(), plan: plan, lock: newInterlock(s.clock), workers: workers}
}

// devices makes the engine's devices, each with its plan: the given
// backends (Options.Devices), else the GPUs of the CUDA library, else the
// CPU (or an error when gpus.required is set).
func (s *deviceSetup) devices(opt Options) ([]*device, error) {
	if len(opt.Devices) > 0 {
		var out []*device
		for i, be := range opt.Devices {
			out = append(out, s.device(be.Name(), "given", i, be, s.gpuPlan(be), s.gpus.WorkersPerDevice))
		}
		return out, nil
	}
	seen := 0
	if opt.DiscoverGPUs != nil {
		if gpus, err := opt.DiscoverGPUs(); err == nil && len(gpus) > 0 {
			seen = len(gpus)
			s.log.Info("NVML reports GPUs", "count", len(gpus), "first", gpus[0].Name)
		}
	}
	gpus, err := s.cudaDevices()
	if len(gpus) > 0 {
		return gpus, nil
	}
	if s.gpus.Required {
		return nil, fmt.Errorf("engine: gpus.required is set but no GPU can be used: %v", errString(err))
	}
	// A machine that shows no GPU (NVML saw none, no NVIDIA driver) and
	// has no CUDA library file is expected to prove on the CPU: said at
	// debug, not as a warning every process of a CPU host would print. A
	// library file found or named (a path, not the loader's soname) that
	// does not load is worth the warning anywhere; one that loads and
	// finds no device (cudaErrorNoDevice) on such a machine is not.
	reason := errString(err)
	var ce *cuda.Error
	noDevice := errors.As(err, &ce) && ce.CUDA() == cudaErrorNoDevice
	if seen > 0 || gpuPresent() || !noDevice && strings.ContainsRune(s.gpus.CUDALib, filepath.Separator) {
		s.log.Warn("no usable GPU; proving on the CPU backend", "reason", reason, "nvml_gpus", seen)
	} else {
		s.log.Debug("no GPU on this machine; proving on the CPU backend", "reason", reason)
	}
	// Everything on the host's cores; the G2 MSM after the interlock, with
	// the throttle raised.
	plan := groth16.NewPlan(groth16.Plan{Device: s.cpu, G2Threads: s.gpus.G2Threads})
	d := s.device("cpu", "cpu", noCPUIndex, s.cpu, plan, s.gpus.CPUWorkers)
	d.reason = reason
	return []*device{d}, nil
}

// gpuPresent reports whether the NVIDIA driver shows a GPU on this
// machine, for a host without NVML (the library): a GPU's device node
// (/dev/nvidia0, ...; the control node /dev/nvidiactl alone is seen on
// hosts without a GPU) or its entry under /proc/driver/nvidia/gpus. A
// variable for tests.
var gpuPresent = func() bool {
	for _, pattern := range []string{"/dev/nvidia[0-9]*", "/proc/driver/nvidia/gpus/*"} {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			return true
		}
	}
	return false
}

// gpuPlan is a GPU's plan: the prep and the G2 MSM where gpus.device_prep
// and gpus.g2_on_gpu say, as far as the backend can.
func (s *deviceSetup) gpuPlan(be backend.Backend) *groth16.Plan {
	g := s.gpus
	return groth16.NewPlan(groth16.Plan{Device: be, CPU: s.cpu, G2Threads: g.G2Threads, DevicePrep: g.DevicePrep, G2OnGPU: g.G2OnGPU})
}

// cudaDevices loads the CUDA library and makes a device per usable GPU
// (those listed in gpus.devices, or all).
func (s *deviceSetup) cudaDevices() ([]*device, error) {
	path := s.gpus.CUDALib // resolved by the host layer (config.CUDASearch)
	looked := ""
	if s := s.gpus.CUDASearched; len(s) > 0 {
		looked = "; looked in " + strings.Join(s, ", ")
	}
	if path == "" {
		return nil, fmt.Errorf("no CUDA library found (set gpus.cuda_lib to the path of %s)%s", config.CUDALibFile, looked)
	}
	lib, err := cuda.Open(path)
	if err != nil {
		if looked != "" {
			return nil, fmt.Errorf("%w (set gpus.cuda_lib to the path of %s%s)", err, config.CUDALibFile, looked)
		}
		return nil, err
	}
	gpus, err := lib.Devices()
	if err != nil {
		return nil, err
	}
	want := map[int]bool{}
	for _, d := range s.gpus.Devices {
		want[d] = true
	}
	var out []*device
	for _, g := range gpus {
		if len(want) > 0 && !want[g.Index] {
			continue
		}
		cp, err := config.DeviceMemoryCap(s.gpus.MaxDeviceMemory, g.VRAMTotal, g.VRAMFree)
		if err != nil {
			return nil, fmt.Errorf("GPU %d: %w", g.Index, err)
		}
		opts := cuda.DefaultOptions()
		opts.MaxDeviceMemory, opts.MSMPool = cp, s.gpus.MSMPool
		if opts.HostSync, err = s.gpus.HostSyncMode(); err != nil {
			return nil, err
		}
		be, err := cuda.NewBackend(lib, g, opts)
		if err != nil {
			return nil, fmt.Errorf("GPU %d: %w", g.Index, err)
		}
		d := s.device(be.Name(), "gpu", g.Index, be, s.gpuPlan(be), s.gpus.WorkersPerDevice)
		d.model = g.Name
		out = append(out, d)
		s.log.Info("GPU device", "index", g.Index, "name", g.Name, "vram", g.VRAMTotal, "max_device_memory", cp)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s sees %d GPU(s), none of them selected by gpus.devices", path, len(gpus))
	}
	return out, nil
}

func errString(err error) string {
	if err == nil {
		return "none present"
	}
	return err.Error()
}

// outOfService returns the error that took d out of service, naming the
// device, or nil while d is in service.
func (d *device) outOfService() error {
	f := d.lock.failed()
	if f == nil {
		return nil
	}
	return fmt.Errorf("engine: device %s (index %d) is out of service: %w", d.name, d.index, f)
}

// closeBackends closes each device's backend (io.Closer, or a Close
// without a result as the CUDA backend's): it frees what the backend keeps
// on its device, such as resident parameter points. Call it once, after
// the workers have stopped.
func closeBackends(devices []*device, log *slog.Logger) {
	for _, d := range devices {
		switch c := d.be.(type) {
		case io.Closer:
			if err := c.Close(); err != nil {
				log.Warn("closing a device's backend", "device", d.name, "err", err)
			}
		case interface{ Close() }:
			c.Close()
		}
	}
}
