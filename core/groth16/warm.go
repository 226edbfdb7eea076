package groth16

import (
	"fmt"

	"github.com/cuzk/cuzk/core/params"
)

// Warm makes pk's point sets resident on the plan's device now
// (its Capabilities.Warm), in the order the device region first uses them, so
// that the device's memory plan decides which sets stay as the first
// region would, and that region finds them there instead of uploading
// them inside its lock. B_G2 is left alone when it runs on the CPU. A
// device that keeps nothing between proofs has nothing to do.
func (p *Plan) Warm(pk *params.ProvingKey) error {
	w := p.caps.Warm
	if w == nil || pk == nil {
		return nil
	}
	type step struct {
		name string
		warm func() error
	}
	h := step{StageMSMH, func() error { return w.WarmG1(pk.H) }}
	queries := []step{
		{StageMSML, func() error { return w.WarmG1(pk.L) }},
		{StageMSMA, func() error { return w.WarmG1(pk.A) }},
		{StageMSMB1, func() error { return w.WarmG1(pk.BG1) }},
	}
	if p.G2OnGPU {
		queries = append(queries, step{StageMSMB2, func() error { return w.WarmG2(pk.BG2) }})
	}
	// Region's order (region): with the device's prep the query MSMs run
	// first and h after them; otherwise h first.
	order := append([]step{h}, queries...)
	if p.DevicePrep {
		order = append(queries, h)
	}
	for _, s := range order {
		if err := s.warm(); err != nil {
			return fmt.Errorf("groth16: making the %s points resident: %w", s.name, err)
		}
	}
	return nil
}
