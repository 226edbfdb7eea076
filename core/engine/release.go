package engine

import (
	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/params"
)

// ReleaseKey frees the device memory that backends keep for pk's points.
// Call it when no handle names pk and no job uses it any more: the SRS
// cache does when the last handle of an evicted or dropped SRS goes.
func (e *Engine) ReleaseKey(pk *params.ProvingKey) {
	if pk == nil {
		return
	}
	for _, d := range e.devices {
		if r, ok := d.be.(backend.KeyReleaser); ok {
			r.ReleaseKey(pk)
		}
	}
}

// SubgroupChecker returns the subgroup checker of the first device whose
// backend offers one (a GPU checks a parameter file's points far faster
// than the CPU, and uploads them for the MSMs on the way), or nil: the
// loader then tries the Filecoin manifest and checks on the CPU. The CPU
// device's checker is not offered: it is the loader's own fall-back, and
// offering it would skip the manifest. A device out of service is passed
// over.
func (e *Engine) SubgroupChecker() params.SubgroupChecker {
	for _, d := range e.devices {
		if _, isCPU := d.be.(*cpu.Backend); isCPU || d.kind == "cpu" || d.lock.failed() != nil {
			continue
		}
		if c, ok := d.be.(params.SubgroupChecker); ok {
			return c
		}
	}
	return nil
}
