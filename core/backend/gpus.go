package backend

import "errors"

// GPU describes a GPU found by discovery (NVML, package nvml).
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

// Discover lists GPUs. Discovery is injected (package nvml provides one
// through go-nvml) because go-nvml leaves NVML's symbols for the dynamic
// loader to resolve, which a shared library such as libcuzk.so cannot
// ship: its hosts would fail to link.
type Discover func() ([]GPU, error)
