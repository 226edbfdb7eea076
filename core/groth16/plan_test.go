package groth16

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/r1cs"
)

// NewPlan grants what the device's backend can do and no more.
func TestNewPlan(t *testing.T) {
	host := &cpu.Backend{}
	p := NewPlan(Plan{Device: host, DevicePrep: true, G2OnGPU: false})
	require.False(t, p.DevicePrep, "the CPU backend selects no scalars itself")
	require.False(t, p.FusedH)
	require.False(t, p.Prefetch)
	require.Same(t, host, p.CPU, "a nil CPU is the device")
	require.Equal(t, "before the lock: prep a+b (host); inside: ntt (h), msm h, msm l, msm a, msm b_g1; after: msm b_g2 on cpu (throttle raised)", p.String())

	be := &queriesBackend{}
	p = NewPlan(Plan{Device: be, CPU: host, DevicePrep: true, G2OnGPU: true})
	require.True(t, p.DevicePrep)
	require.True(t, p.Prefetch)
	require.Equal(t, []string{"upload aux", "upload a, b, c (once ready, beside the region)"}, p.Before())
	require.Equal(t, []string{"msm l (prep on the device)", "msm a", "msm b_g1", "msm b_g2", "ntt (h)", "msm h"}, p.Inside())
	require.Empty(t, p.After())

	p = NewPlan(Plan{Device: be, CPU: host, DevicePrep: false, G2OnGPU: true})
	require.False(t, p.Prefetch, "no prefetch with the prep on the host: h needs a, b, c at once")
	require.Equal(t, []string{"prep a+b (host)"}, p.Before())
}

// recordingLock runs the region and records what the device had seen
// when it was taken.
type recordingLock struct {
	be                *queriesBackend
	prefetchesAtEntry int
	abcAtEntry        int // a, b, c prefetches made before the region (none: they wait for it)
	regions           int
	refuse            error
}

func (l *recordingLock) Run(region func() error) error {
	l.regions++
	l.prefetchesAtEntry = l.be.prefetches
	l.abcAtEntry = l.be.abcPrefetches
	if l.refuse != nil {
		return l.refuse
	}
	return region()
}

type countingThrottle struct{ raised, lowered int }

func (c *countingThrottle) Raise() { c.raised++ }
func (c *countingThrottle) Lower() { c.lowered++ }

// Run uploads aux before it takes the lock and a, b, c within the region,
// raises the throttle around a CPU G2 MSM only, and releases the uploads
// even when the lock refuses
// the region.
func TestRunUploadsBeforeTheLock(t *testing.T) {
	withReferenceProofs(t, rand.New(rand.NewPCG(9, 10)), func(c referenceCase) {
		for _, onGPU := range []bool{false, true} {
			be := &queriesBackend{}
			plan := NewPlan(Plan{Device: be, CPU: &cpu.Backend{}, DevicePrep: true, G2OnGPU: onGPU})
			asg := c.assignment(t)
			lock := &recordingLock{be: be}
			th := &countingThrottle{}
			after := 0
			rep := &Report{}
			m, err := plan.Run(c.pk, asg, RunOptions{Lock: lock, Throttle: th, AfterRegion: func() error { after++; return nil }}, rep)
			require.NoError(t, err)
			require.NotNil(t, rep.ABCReady, "when a, b, c were ready for their prefetch, against the region's start")
			require.Equal(t, c.want.Bytes(), Assemble(&c.pk.VerifyingKey, &c.r, &c.s, m).Bytes(), "%s, G2 on the GPU %v", c.shape, onGPU)
			require.Equal(t, 1, lock.prefetchesAtEntry, "aux uploaded before the lock")
			require.Zero(t, lock.abcAtEntry, "a, b, c wait for their own region")
			require.Equal(t, 1, be.abcPrefetches, "and go up in it")
			require.Equal(t, 1, be.begins, "the region announced to the backend")
			require.Zero(t, be.abcUnannounced, "before a, b, c's prefetch")
			require.Equal(t, 1, after)
			want := 0
			if !onGPU {
				want = 1
			}
			require.Equal(t, countingThrottle{want, want}, *th, "throttle raised around the CPU G2 MSM only")

			be = &queriesBackend{}
			plan = NewPlan(Plan{Device: be, CPU: &cpu.Backend{}, DevicePrep: true, G2OnGPU: onGPU})
			refused := errors.New("device out of service")
			rep = &Report{}
			_, err = plan.Run(c.pk, c.assignment(t), RunOptions{Lock: &recordingLock{be: be, refuse: refused}, AfterRegion: func() error { after++; return nil }}, rep)
			require.ErrorIs(t, err, refused)
			require.Nil(t, rep.ABCReady, "no region, no time against it")
			require.Zero(t, be.abcPrefetches, "no region, no a, b, c upload: the goroutine ended all the same")
			require.Zero(t, be.begins, "nor a region announced")
			require.Equal(t, 1, be.releases, "and the uploads released")
			require.Equal(t, 1, after, "nothing runs after a refused region")
		}
	})
}

// assignment evaluates c's witness over the parameters' domain.
func (c referenceCase) assignment(t *testing.T) *Assignment {
	n := len(c.pk.H) + 1
	asg := &Assignment{A: make([]fr.Element, n), B: make([]fr.Element, n), C: make([]fr.Element, n),
		Inputs: c.w.Inputs, Aux: c.w.Aux, Density: &c.cs.Density}
	require.NoError(t, c.cs.Eval(c.w, asg.A, asg.B, asg.C, r1cs.EvalOptions{}))
	return asg
}
