package groth16

import (
	"fmt"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/params"
)

// MSMResults are a partition's multi-scalar multiplications: Σ h_i·H_i,
// Σ aux_j·L_j and the A, B_G1 and B_G2 query sums. Assemble makes the
// proof of them.
type MSMResults struct {
	H, L, A, B1 bls.G1Jac
	B2          bls.G2Jac
}

// Lock serializes device regions: the engine's per-device interlock.
type Lock interface {
	// Run runs region holding the lock and returns its error.
	Run(region func() error) error
}

// Throttle is raised while a B_G2 MSM runs on the CPU: the engine's
// memory-bandwidth throttle (package throttle).
type Throttle interface {
	Raise()
	Lower()
}

// RunOptions are what a partition's run shares with others on its
// device. The zero value is a single proof: no lock, no throttle.
type RunOptions struct {
	Lock     Lock
	Throttle Throttle
	// AfterRegion, when set, runs once the region has ended well and
	// before a B_G2 MSM on the CPU; an error ends the run. The engine
	// checks there that the job still wants the proof and hands a, b, c,
	// which nothing reads any more, to its dealloc goroutine.
	AfterRegion func() error
}

type noLock struct{}

func (noLock) Run(region func() error) error { return region() }

type noThrottle struct{}

func (noThrottle) Raise() {}
func (noThrottle) Lower() {}

// Run proves asg's partition as p says, in three parts:
//
//	before the lock: the host prep (the scalars the device does not
//	        select), the upload of aux, and a goroutine that uploads a, b, c
//	        once they are ready (Assignment.Ready) and the region has begun
//	inside (opt.Lock): the query MSMs then h and the H MSM (prep on the
//	        device), or h, the H MSM then the query MSMs (prep on the host);
//	        B_G2 too when it runs on the GPU
//	after:  opt.AfterRegion, then B_G2 on the CPU with opt.Throttle raised
//
// It returns the MSMs for Assemble, and appends each stage's time to rep.
// It may overwrite asg.A, B and C.
func (p *Plan) Run(pk *params.ProvingKey, asg *Assignment, opt RunOptions, rep *Report) (*MSMResults, error) {
	lock, th := opt.Lock, opt.Throttle
	if rep.progress != nil && rep.costs == nil {
		rep.expect(pk, false)
	}
	if lock == nil {
		lock = noLock{}
	}
	if th == nil {
		th = noThrottle{}
	}
	res := &MSMResults{}
	var prep *Prepared
	switch {
	case !p.DevicePrep:
		prep = Prepare(asg)
	case !p.G2OnGPU:
		prep = prepareB(asg)
	}
	defer prep.Release()

	var up *uploads
	if p.Prefetch {
		up = startUploads(p.caps.Prefetch, asg)
		defer up.release() // also when a panic leaves Run (the goroutine ends, the prefetches go)
	}
	var regionStart time.Time
	err := lock.Run(func() error {
		regionStart = time.Now()
		if up != nil {
			up.begin(true)
		}
		return p.region(pk, asg, prep, up, res, rep)
	})
	if up != nil {
		up.release() // before a, b, c may be reused (AfterRegion)
		if !up.readyAt.IsZero() && !regionStart.IsZero() {
			d := up.readyAt.Sub(regionStart)
			rep.ABCReady = &d
		}
	}
	if err != nil {
		return nil, err
	}
	if opt.AfterRegion != nil {
		if err := opt.AfterRegion(); err != nil {
			return nil, err
		}
	}
	if !p.G2OnGPU {
		th.Raise()
		defer th.Lower()
		if err := p.g2(p.CPU, pk, prep, res, rep); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// region is the work inside the lock.
func (p *Plan) region(pk *params.ProvingKey, asg *Assignment, prep *Prepared, up *uploads, res *MSMResults, rep *Report) error {
	if !p.DevicePrep {
		if err := asg.ready(); err != nil {
			return err
		}
		if err := p.h(pk, asg, nil, res, rep); err != nil {
			return err
		}
		steps := []struct {
			name string
			fn   func() (msm.Stats, error)
		}{
			{StageMSML, func() (st msm.Stats, err error) { res.L, st, err = p.Device.MSMG1(pk.L, asg.Aux); return }},
			{StageMSMA, func() (st msm.Stats, err error) { res.A, st, err = p.Device.MSMG1(pk.A, prep.AScalars); return }},
			{StageMSMB1, func() (st msm.Stats, err error) { res.B1, st, err = p.Device.MSMG1(pk.BG1, prep.BScalars); return }},
		}
		for _, s := range steps {
			if err := rep.timed(s.name, s.fn); err != nil {
				return fmt.Errorf("groth16: %s: %w", s.name, err)
			}
		}
		if p.G2OnGPU {
			return p.g2(p.Device, pk, prep, res, rep)
		}
		return nil
	}
	// The query MSMs need aux alone: they run first, while a, b, c go up.
	var upload time.Duration
	var pre backend.Prefetch
	if up != nil {
		upload, pre = up.auxTime, up.pre
	} else if err := asg.ready(); err != nil {
		return err
	}
	err := p.queries(pk, asg, pre, res, rep, upload)
	if up != nil {
		if abcErr := up.wait(); err == nil {
			err = abcErr
		}
	}
	if err != nil {
		return err
	}
	return p.h(pk, asg, pre, res, rep)
}

// h computes h and the H MSM, in one call where the device keeps h
// (FusedH), its two halves reported apart; pre (nil: none) is the
// partition's prefetch, whose a, b, c the fused call takes.
func (p *Plan) h(pk *params.ProvingKey, asg *Assignment, pre backend.Prefetch, res *MSMResults, rep *Report) error {
	if p.FusedH {
		start := time.Now()
		var hTime, msmTime time.Duration
		var err error
		res.H, hTime, msmTime, err = p.caps.FusedH.HMSM(pk.H, asg.A, asg.B, asg.C, pre)
		if err != nil {
			return fmt.Errorf("groth16: %s+%s: %w", StageFFT, StageMSMH, err)
		}
		if other := time.Since(start) - hTime - msmTime; other > 0 {
			hTime += other // the call's own overhead, with the uploads
		}
		rep.add(Stage{Name: StageFFT, Duration: hTime}, Stage{Name: StageMSMH, Duration: msmTime})
		return nil
	}
	var h []fr.Element
	if err := rep.timed(StageFFT, func() (st msm.Stats, err error) { h, err = p.Device.H(asg.A, asg.B, asg.C); return }); err != nil {
		return fmt.Errorf("groth16: %s: %w", StageFFT, err)
	}
	if err := rep.timed(StageMSMH, func() (st msm.Stats, err error) { res.H, st, err = p.Device.MSMG1(pk.H, h); return }); err != nil {
		return fmt.Errorf("groth16: %s: %w", StageMSMH, err)
	}
	return nil
}

// queries runs the L, A, B_G1 (and, with G2OnGPU, B_G2) MSMs through the
// device's own prep, over pre's copy of aux (nil: none); upload (the
// prefetch of aux) counts with L, as the upload of aux does inside
// QueryMSMs.
func (p *Plan) queries(pk *params.ProvingKey, asg *Assignment, pre backend.Prefetch, res *MSMResults, rep *Report, upload time.Duration) error {
	in := &backend.QueryInput{L: pk.L, A: pk.A, BG1: pk.BG1, Inputs: asg.Inputs, Aux: asg.Aux,
		BInput: &asg.Density.BInput, AAux: &asg.Density.AAux, BAux: &asg.Density.BAux, Prefetch: pre}
	if p.G2OnGPU {
		in.BG2 = pk.BG2
	}
	out, err := p.caps.Queries.QueryMSMs(in)
	if err != nil {
		return fmt.Errorf("groth16: query MSMs: %w", err)
	}
	res.L, res.A, res.B1 = out.L, out.A, out.B1
	rep.add(Stage{Name: StageMSML, Duration: upload + out.Times[0]}, Stage{Name: StageMSMA, Duration: out.Times[1]},
		Stage{Name: StageMSMB1, Duration: out.Times[2]})
	if in.BG2 != nil {
		res.B2 = out.B2
		rep.add(Stage{Name: StageMSMB2, Duration: out.Times[3]})
	}
	return nil
}

// g2 runs the B_G2 MSM over the host-gathered B scalars on be.
func (p *Plan) g2(be backend.Backend, pk *params.ProvingKey, prep *Prepared, res *MSMResults, rep *Report) error {
	err := rep.timed(StageMSMB2, func() (st msm.Stats, err error) {
		res.B2, st, err = be.MSMG2(pk.BG2, prep.BScalars, p.G2Threads)
		return
	})
	if err != nil {
		return fmt.Errorf("groth16: %s: %w", StageMSMB2, err)
	}
	return nil
}

// uploads are a partition's prefetch (backend.Prefetch), which Run holds
// and hands to the query MSMs and h: aux, uploaded before the region, and
// a, b, c, uploaded by a goroutine of their own once they are ready and
// the region has begun. (Within its own region the partition's a, b, c
// are decided on beside its own query stage, which the backend counts;
// before it, they would hold device memory through another partition's h
// stage, where a capped device has least room. The region's first MSMs
// do not need them: started at the region's start, the copy ends before
// h.)
type uploads struct {
	pre      backend.Prefetch
	auxTime  time.Duration // the upload of aux
	abc      chan error    // the a, b, c goroutine's end
	abcErr   error
	waited   bool
	inputs   int
	readyAt  time.Time // when a, b, c were ready (set before abc is sent)
	start    chan bool // the region began (true) or will not (false); sent once (begun)
	begun    bool
	released bool
}

func startUploads(pf backend.Prefetcher, asg *Assignment) *uploads {
	u := &uploads{inputs: len(asg.Inputs), abc: make(chan error, 1), start: make(chan bool, 1)}
	start := time.Now()
	u.pre = pf.Prefetch(asg.Aux)
	u.auxTime = time.Since(start)
	a, b, c := asg.A, asg.B, asg.C
	go func() {
		err := asg.ready()
		if err == nil {
			u.readyAt = time.Now()
			if <-u.start {
				u.pre.ABC(a, b, c)
			}
		}
		u.abc <- err
	}()
	return u
}

// begin lets the a, b, c goroutine go on, once: to upload them if the
// region began (ran; the backend told first, Prefetch.BeginRegion), else
// to end.
func (u *uploads) begin(ran bool) {
	if u.begun {
		return
	}
	u.begun = true
	if ran {
		u.pre.BeginRegion(u.inputs)
	}
	u.start <- ran
}

// wait returns once the a, b, c upload has started (or a, b, c never
// became ready: the error).
func (u *uploads) wait() error {
	if !u.waited {
		u.abcErr = <-u.abc
		u.waited = true
	}
	return u.abcErr
}

// release lets the a, b, c goroutine end (also when the region did not
// run), waits for it and frees what the device did not use of the
// prefetch; once: later calls do nothing.
func (u *uploads) release() {
	u.begin(false)
	if u.released {
		return
	}
	u.released = true
	_ = u.wait()
	u.pre.Release()
}
