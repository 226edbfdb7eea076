package groth16

import (
	"log/slog"
	"strings"

	"github.com/cuzk/cuzk/core/backend"
)

// Plan says where each stage of a partition runs on one device. It is
// chosen once — by the engine for each of its devices at set-up, by
// ProveAssignment for its backend — and Run follows it: the order of the
// stages is written there alone. String says what runs before, inside and
// after the device region. Make one with NewPlan.
type Plan struct {
	// Device runs the device region: h and the H, L, A and B_G1 MSMs, and
	// B_G2 when G2OnGPU is set. NewPlan reads its Capabilities.
	Device backend.Backend
	// CPU runs the B_G2 MSM after the region, with G2Threads goroutines
	// (0: its default) and the throttle raised, when G2OnGPU is not set.
	CPU       backend.Backend
	G2Threads int
	// DevicePrep selects the A and B query scalars on Device from the
	// witness (backend.Queries; gpus.device_prep), and the query MSMs run
	// first in the region, h after them; otherwise the host gathers the
	// scalars (Prepare) before the region and h runs first.
	DevicePrep bool
	// G2OnGPU runs the B_G2 MSM on Device inside the region (gpus.g2_on_gpu;
	// with the query MSMs under DevicePrep); otherwise on CPU after it.
	G2OnGPU bool
	// FusedH computes h and the H MSM in one call that keeps h on the
	// device (backend.FusedH).
	FusedH bool
	// Prefetch uploads aux before the region (an upload needs no lock, and
	// it then overlaps another partition's region) and a, b, c once they
	// are ready and the region has begun, beside the query MSMs
	// (backend.Prefetcher; with DevicePrep, whose query MSMs need aux
	// alone).
	Prefetch bool

	// caps is what Device offers beyond H and the MSMs, read once by
	// NewPlan; Run and Warm use its parts as the fields above say.
	caps backend.Capabilities
}

// NewPlan returns want with what want.Device cannot do left out, as its
// Capabilities say: DevicePrep needs Queries. FusedH and Prefetch are set
// to what the device offers (Prefetch with DevicePrep only); a nil CPU is
// Device.
func NewPlan(want Plan) *Plan {
	p := want
	if p.CPU == nil {
		p.CPU = p.Device
	}
	p.caps = p.Device.Capabilities()
	p.DevicePrep = p.DevicePrep && p.caps.Queries != nil
	p.FusedH = p.caps.FusedH != nil
	p.Prefetch = p.DevicePrep && p.caps.Prefetch != nil
	return &p
}

// Before lists the stages that run before the device region.
func (p *Plan) Before() []string {
	var s []string
	switch {
	case !p.DevicePrep:
		s = append(s, "prep a+b (host)")
	case !p.G2OnGPU:
		s = append(s, "prep b (host, for the CPU's b_g2)")
	}
	if p.Prefetch {
		s = append(s, "upload aux", "upload a, b, c (once ready, beside the region)")
	}
	return s
}

// Inside lists the stages of the device region, in order.
func (p *Plan) Inside() []string {
	h := []string{StageFFT, StageMSMH}
	if p.FusedH {
		h = []string{StageFFT + "+" + StageMSMH}
	}
	queries := []string{StageMSML, StageMSMA, StageMSMB1}
	if p.DevicePrep {
		queries = []string{StageMSML + " (prep on the device)", StageMSMA, StageMSMB1}
		if p.G2OnGPU {
			queries = append(queries, StageMSMB2)
		}
		return append(queries, h...)
	}
	s := append(h, queries...)
	if p.G2OnGPU {
		s = append(s, StageMSMB2)
	}
	return s
}

// After lists the stages that run after the device region.
func (p *Plan) After() []string {
	if p.G2OnGPU {
		return nil
	}
	return []string{StageMSMB2 + " on " + p.CPU.Name() + " (throttle raised)"}
}

// String is the plan in one line.
func (p *Plan) String() string {
	return "before the lock: " + list(p.Before()) + "; inside: " + list(p.Inside()) + "; after: " + list(p.After())
}

// LogValue groups the plan's parts for log/slog.
func (p *Plan) LogValue() slog.Value {
	return slog.GroupValue(slog.String("before", list(p.Before())), slog.String("inside", list(p.Inside())),
		slog.String("after", list(p.After())))
}

func list(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}
