// Package nvml discovers GPUs through NVIDIA's management library with
// go-nvml, for executables (the cuzk command). It is not linked into
// libcuzk.so: go-nvml leaves NVML's symbols to the dynamic loader, which
// would make every host of the shared library fail to link.
package nvml

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/cuzk/cuzk/core/backend"
)

// Discover lists the GPUs NVML reports (a backend.Discover). Without the NVIDIA library it
// returns ErrNoNVML and no GPUs; it never fails the process.
func Discover() (gpus []backend.GPU, err error) {
	devs, shutdown, err := open()
	if shutdown == nil {
		return nil, err
	}
	defer shutdown()
	for i, dev := range devs {
		g := backend.GPU{Index: i}
		g.Name, _ = dev.GetName()
		g.UUID, _ = dev.GetUUID()
		if mem, ret := dev.GetMemoryInfo(); ret == nvml.SUCCESS {
			g.VRAMTotal, g.VRAMFree = mem.Total, mem.Free
		}
		gpus = append(gpus, g)
	}
	return gpus, err
}

// open initialises NVML and returns a handle for each GPU it reports, up
// to the first that fails (with that error), and the shutdown to call once
// done with them; shutdown is nil when NVML did not initialise (ErrNoNVML
// without the NVIDIA library).
func open() (devs []nvml.Device, shutdown func(), err error) {
	defer func() {
		// go-nvml loads the library with dlopen; be defensive about
		// unusual installs.
		if r := recover(); r != nil {
			devs, shutdown, err = nil, nil, fmt.Errorf("nvml: %v", r)
		}
	}()
	if ret := nvml.Init(); ret != nvml.SUCCESS {
		if ret == nvml.ERROR_LIBRARY_NOT_FOUND {
			return nil, nil, backend.ErrNoNVML
		}
		return nil, nil, fmt.Errorf("nvml: init: %s", nvml.ErrorString(ret))
	}
	shutdown = func() { nvml.Shutdown() }
	n, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, shutdown, fmt.Errorf("nvml: device count: %s", nvml.ErrorString(ret))
	}
	for i := 0; i < n; i++ {
		dev, ret := nvml.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return devs, shutdown, fmt.Errorf("nvml: device %d: %s", i, nvml.ErrorString(ret))
		}
		devs = append(devs, dev)
	}
	return devs, shutdown, nil
}
