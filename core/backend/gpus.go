package backend

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// GPU describes a GPU found through NVML.
type GPU struct {
	Index     int    `json:"index"`
	Name      string `json:"name"`
	UUID      string `json:"uuid"`
	VRAMTotal uint64 `json:"vram_total"`
	VRAMFree  uint64 `json:"vram_free"`
}

// ErrNoNVML is returned when the NVIDIA management library cannot be
// loaded (no driver: a machine without an NVIDIA GPU).
var ErrNoNVML = errors.New("NVIDIA management library (libnvidia-ml.so) not found")

// DiscoverGPUs lists the GPUs NVML reports. Without the NVIDIA library it
// returns ErrNoNVML and no GPUs; it never fails the process.
func DiscoverGPUs() (gpus []GPU, err error) {
	defer func() {
		// go-nvml loads the library with dlopen; be defensive about
		// unusual installs.
		if r := recover(); r != nil {
			gpus, err = nil, fmt.Errorf("nvml: %v", r)
		}
	}()
	if ret := nvml.Init(); ret != nvml.SUCCESS {
		if ret == nvml.ERROR_LIBRARY_NOT_FOUND {
			return nil, ErrNoNVML
		}
		return nil, fmt.Errorf("nvml: init: %s", nvml.ErrorString(ret))
	}
	defer nvml.Shutdown()
	n, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("nvml: device count: %s", nvml.ErrorString(ret))
	}
	for i := 0; i < n; i++ {
		dev, ret := nvml.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return gpus, fmt.Errorf("nvml: device %d: %s", i, nvml.ErrorString(ret))
		}
		g := GPU{Index: i}
		g.Name, _ = dev.GetName()
		g.UUID, _ = dev.GetUUID()
		if mem, ret := dev.GetMemoryInfo(); ret == nvml.SUCCESS {
			g.VRAMTotal, g.VRAMFree = mem.Total, mem.Free
		}
		gpus = append(gpus, g)
	}
	return gpus, nil
}
