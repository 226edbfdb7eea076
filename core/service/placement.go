package service

import (
	"errors"

	"github.com/cuzk/cuzk/core/engine"
)

// placement maps supraseal-c2's gpu_index to an engine placement: -1 is
// any device, i >= 0 the device with CUDA ordinal i (engine.Placement).
func placement(gpuIndex int) (engine.Placement, error) {
	if gpuIndex < -1 {
		return engine.AnyDevice, errorf(InvalidArgument, "cuzk: gpu_index %d: -1 (any device) or a GPU's index", gpuIndex)
	}
	return engine.OnDevice(gpuIndex), nil
}

// placementError names gpu_index in the engine's refusal of a placement.
func placementError(gpuIndex int, err error) error {
	if errors.Is(err, engine.ErrNoDevice) {
		return errorf(InvalidArgument, "cuzk: gpu_index %d: %w", gpuIndex, err)
	}
	return err
}
