package engine

import (
	"errors"
	"fmt"
	"io"
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
	index   int    // what Placement names (placement.go); noCPUIndex for the CPU
	be      backend.Backend
	caps    backend.Capabilities // be's, read once (newDevice)
	plan    *groth16.Plan        // where each stage of a partition runs (worker.go)
	lock    *interlock
	workers int
	// q holds the partitions pinned to this device (the shared queue,
	// Engine.devQ, holds the others); nil for the CPU, which cannot be
	// pinned.
	q chan *task

	// partitions proved here, and partitions that reached a worker here
	// and failed (or were cancelled)
	proved, failed atomic.Int64
}

// newDevice makes a device of be with its plan and interlock.
func (e *Engine) newDevice(name, kind string, index int, be backend.Backend, plan *groth16.Plan, workers int) *device {
	return &device{name: name, kind: kind, index: index, be: be, caps: be.Capabilities(), plan: plan, lock: newInterlock(e.clock), workers: workers}
}

// setupDevices makes the engine's devices, each with its plan: the given
// backends (Options.Devices), else the GPUs of the CUDA library, else the
// CPU (or an error when gpus.required is set).
func (e *Engine) setupDevices(opt Options) error {
	if len(opt.Devices) > 0 {
		for i, be := range opt.Devices {
			e.devices = append(e.devices, e.newDevice(be.Name(), "given", i, be, e.gpuPlan(be), e.cfg.GPUs.WorkersPerDevice))
		}
		return nil
	}
	seen := 0
	if opt.DiscoverGPUs != nil {
		if gpus, err := opt.DiscoverGPUs(); err == nil && len(gpus) > 0 {
			seen = len(gpus)
			e.log.Info("NVML reports GPUs", "count", len(gpus), "first", gpus[0].Name)
		}
	}
	gpus, err := e.cudaDevices()
	if len(gpus) > 0 {
		e.devices = gpus
		return nil
	}
	if e.cfg.GPUs.Required {
		return fmt.Errorf("engine: gpus.required is set but no GPU can be used: %v", errString(err))
	}
	e.log.Warn("no usable GPU; proving on the CPU backend", "reason", errString(err), "nvml_gpus", seen)
	// Everything on the host's cores; the G2 MSM after the interlock, with
	// the throttle raised.
	plan := groth16.NewPlan(groth16.Plan{Device: e.cpu, G2Threads: e.cfg.GPUs.G2Threads})
	e.devices = []*device{e.newDevice("cpu", "cpu", noCPUIndex, e.cpu, plan, e.cfg.GPUs.CPUWorkers)}
	return nil
}

// gpuPlan is a GPU's plan: the prep and the G2 MSM where gpus.device_prep
// and gpus.g2_on_gpu say, as far as the backend can.
func (e *Engine) gpuPlan(be backend.Backend) *groth16.Plan {
	g := e.cfg.GPUs
	return groth16.NewPlan(groth16.Plan{Device: be, CPU: e.cpu, G2Threads: g.G2Threads, DevicePrep: g.DevicePrep, G2OnGPU: g.G2OnGPU})
}

// cudaDevices loads the CUDA library and makes a device per usable GPU
// (those listed in gpus.devices, or all).
func (e *Engine) cudaDevices() ([]*device, error) {
	path := e.cfg.GPUs.CUDALib // resolved by the host layer (config.CUDASearch)
	looked := ""
	if s := e.cfg.GPUs.CUDASearched; len(s) > 0 {
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
	for _, d := range e.cfg.GPUs.Devices {
		want[d] = true
	}
	var out []*device
	for _, g := range gpus {
		if len(want) > 0 && !want[g.Index] {
			continue
		}
		cp, err := config.DeviceMemoryCap(e.cfg.GPUs.MaxDeviceMemory, g.VRAMTotal, g.VRAMFree)
		if err != nil {
			return nil, fmt.Errorf("GPU %d: %w", g.Index, err)
		}
		opts := cuda.DefaultOptions()
		opts.MaxDeviceMemory, opts.MSMPool = cp, e.cfg.GPUs.MSMPool
		be, err := cuda.NewBackend(lib, g, opts)
		if err != nil {
			return nil, fmt.Errorf("GPU %d: %w", g.Index, err)
		}
		out = append(out, e.newDevice(be.Name(), "gpu", g.Index, be, e.gpuPlan(be), e.cfg.GPUs.WorkersPerDevice))
		e.log.Info("GPU device", "index", g.Index, "name", g.Name, "vram", g.VRAMTotal, "max_device_memory", cp)
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

// deviceQueues lists the shared device queue and each device's own.
func (e *Engine) deviceQueues() []chan *task {
	qs := []chan *task{e.devQ}
	for _, d := range e.devices {
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

// outOfService returns the error that took d out of service, naming the
// device, or nil while d is in service.
func (d *device) outOfService() error {
	f := d.lock.failed()
	if f == nil {
		return nil
	}
	return fmt.Errorf("engine: device %s (index %d) is out of service: %w", d.name, d.index, f)
}

// inService reports whether a device still takes work.
func (e *Engine) inService() bool {
	for _, d := range e.devices {
		if d.lock.failed() == nil {
			return true
		}
	}
	return false
}

// checkInService refuses a request that no device in service may prove:
// one pinned to a device out of service, or any when every device is.
func (e *Engine) checkInService(p Placement) error {
	if i, ok := p.Device(); ok {
		if d := e.byIndex[i]; d != nil {
			return d.outOfService()
		}
		return nil
	}
	if e.inService() {
		return nil
	}
	errs := make([]error, 0, len(e.devices))
	for _, d := range e.devices {
		errs = append(errs, d.outOfService())
	}
	return fmt.Errorf("engine: no device in service: %w", errors.Join(errs...))
}

// take returns the next partition for a worker of d, or nil when the
// engine closes: pinned partitions (d.q, nil for the CPU) and shared ones
// (e.devQ) in the order they become ready; when both are, either. A device
// out of service takes shared partitions only when no device is in service
// (to fail them); one taken as the device failed goes back to the queue.
func (e *Engine) take(d *device) *task {
	for {
		shared := e.devQ
		if d.lock.failed() != nil && e.inService() {
			shared = nil
		}
		var t *task
		select {
		case t = <-d.q:
			return t
		case t = <-shared:
		case <-e.closing:
			return nil
		}
		if d.lock.failed() == nil || !e.inService() {
			return t
		}
		select {
		case e.devQ <- t:
		case <-e.closing:
			e.finishTask(t, ErrClosed)
			return nil
		}
	}
}

// closeBackends closes each device's backend (io.Closer, or a Close
// without a result as the CUDA backend's): it frees what the backend keeps
// on its device, such as resident parameter points. Call it once, after
// the workers have stopped.
func (e *Engine) closeBackends() {
	for _, d := range e.devices {
		switch c := d.be.(type) {
		case io.Closer:
			if err := c.Close(); err != nil {
				e.log.Warn("closing a device's backend", "device", d.name, "err", err)
			}
		case interface{ Close() }:
			c.Close()
		}
	}
}
