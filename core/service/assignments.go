package service

import (
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/progress"
)

// Pending is an asynchronous supraseal-c2 proof (start/finalize).
type Pending struct {
	s    *Service
	job  uint64
	eng  *engine.Engine
	id   string // the engine's job id
	once sync.Once

	// settled is closed once nothing of the request is read any more; it is
	// taken at submission, since awaiting lets the engine forget the job.
	settled <-chan struct{}
}

// StartAssignments submits host-synthesized partitions (supraseal-c2's
// Assignment) proved with h, and returns once the engine has copied every
// partition's a, b, c into its own buffers (counted against
// memory.budget): a host that starts faster than the devices prove waits
// here instead of growing the heap. r and sv are copied before it returns
// too, so the caller may free them and a, b, c then (bellperson's
// prove_start does). Inputs, aux and the density bitmaps must stay valid
// until Finalize or Destroy returns. lock, when set, is held with the
// device's interlock; gpuIndex pins the partitions to one GPU (-1: any
// device; placement.go). Values that are not field elements fail the job:
// start returns that error when it is known by then, else Finalize does.
func (s *Service) StartAssignments(h *SRS, asgs []*groth16.Assignment, r, sv []fr.Element, lock sync.Locker, gpuIndex int) (*Pending, error) {
	p, err := s.start(h, asgs, r, sv, lock, gpuIndex)
	if err != nil {
		return nil, err
	}
	abc, err := p.eng.ABCReleased(p.id)
	if err != nil {
		return nil, err
	}
	<-abc
	if failed, err := p.failedEarly(); failed {
		return nil, err
	}
	return p, nil
}

// start checks the shapes (cheap: sizes, bitmaps, the constant ONE) and
// submits; the scans over whole vectors run later, per partition, on the
// synthesis goroutines (engine.takeAssignment).
func (s *Service) start(h *SRS, asgs []*groth16.Assignment, r, sv []fr.Element, lock sync.Locker, gpuIndex int) (*Pending, error) {
	if h == nil || h.pk == nil {
		return nil, errorf(InvalidArgument, "cuzk: null SRS")
	}
	if len(asgs) == 0 || len(r) != len(asgs) || len(sv) != len(asgs) {
		return nil, errorf(InvalidArgument, "cuzk: %d circuits with %d r and %d s values", len(asgs), len(r), len(sv))
	}
	// r and s are read when each partition is assembled, long after start
	// returns: keep copies (bellperson frees its r_s and s_s right away).
	rs := append([]fr.Element(nil), r...)
	ss := append([]fr.Element(nil), sv...)
	for i := range rs {
		if !groth16.Reduced(&rs[i]) || !groth16.Reduced(&ss[i]) {
			return nil, errorf(InvalidArgument, "cuzk: circuit %d: r or s is not a reduced field element", i)
		}
	}
	place, err := placement(gpuIndex)
	if err != nil {
		return nil, err
	}
	req := engine.Request{Circuit: &engine.Circuit{ID: "srs:" + h.path, PK: h.pk}, Interlock: lock, Priority: engine.Normal, Placement: place,
		Progress: progress.RateLimited(progressEvery, progress.Log(s.log, "cuzk: proving", "params", h.path))}
	for i, a := range asgs {
		if err := checkAssignment(h.pk, a); err != nil {
			return nil, fmt.Errorf("circuit %d: %w", i, err)
		}
		cp := *a
		req.Partitions = append(req.Partitions, engine.Partition{Assignment: &cp, R: &rs[i], S: &ss[i]})
	}
	job, eng, id, err := s.submitJob(req)
	if err != nil {
		return nil, placementError(gpuIndex, err)
	}
	settled, err := eng.Settled(id)
	if err != nil {
		return nil, err // the job cannot be gone before its handle was returned
	}
	return &Pending{s: s, job: job, eng: eng, id: id, settled: settled}, nil
}

// checkAssignment validates a host assignment's shape against the
// parameters before anything runs: sizes, densities, the constant ONE.
func checkAssignment(pk *params.ProvingKey, a *groth16.Assignment) error {
	n := len(pk.H) + 1
	if len(a.A) == 0 || len(a.A) > n || len(a.B) != len(a.A) || len(a.C) != len(a.A) {
		return errorf(InvalidArgument, "cuzk: abc_size %d does not fit the parameters' domain of %d", len(a.A), n)
	}
	if err := groth16.CheckWitness(pk, a.Inputs, a.Aux, a.Density); err != nil {
		return &Error{Code: InvalidArgument, Err: err}
	}
	return nil
}

// ProveAssignments proves and waits; a, b, c must stay valid until it
// returns.
func (s *Service) ProveAssignments(h *SRS, asgs []*groth16.Assignment, r, sv []fr.Element, lock sync.Locker, gpuIndex int) ([]params.Proof, error) {
	p, err := s.start(h, asgs, r, sv, lock, gpuIndex)
	if err != nil {
		return nil, err
	}
	return p.Finalize()
}

// failedEarly reports whether the job has already failed (with its error,
// the handle forgotten, and the job settled).
func (p *Pending) failedEarly() (bool, error) {
	res, ended, err := p.eng.Peek(p.id)
	if err != nil || !ended || res.Err == nil {
		return false, nil
	}
	var out error
	p.once.Do(func() { _, _, out = p.s.await(p.job, 0); p.settle() })
	return true, out
}

// settle waits until no partition of the job reads the caller's memory.
func (p *Pending) settle() {
	<-p.settled
}

// Finalize waits for the proofs. It returns only once nothing of the
// request is read any more, also on failure, so that the caller may free
// its inputs, aux and bitmaps then.
func (p *Pending) Finalize() ([]params.Proof, error) {
	var proofs []params.Proof
	err := fmt.Errorf("cuzk: pending proof already finalized or destroyed")
	p.once.Do(func() {
		proofs, _, err = p.s.await(p.job, 0)
		p.settle()
	})
	return proofs, err
}

// Destroy abandons the proof (cancelling it if it still runs) and returns
// once nothing of the request is read any more.
func (p *Pending) Destroy() {
	p.once.Do(func() {
		_ = p.s.Cancel(p.job)
		_, _, _ = p.s.await(p.job, 0)
		p.settle()
	})
}

// CompressProofs encodes in-memory proofs (supraseal-c2's layout) as
// bellperson's bytes, refusing points off the curve or the subgroup.
func CompressProofs(proofs []params.Proof) ([]byte, error) {
	for i := range proofs {
		p := &proofs[i]
		if !p.A.IsInSubGroup() || !p.B.IsInSubGroup() || !p.C.IsInSubGroup() {
			return nil, errorf(InvalidArgument, "cuzk: proof %d: a point is not on the curve or not in the subgroup", i)
		}
	}
	return params.EncodeProofs(proofs), nil
}

// AssignmentLimits are the largest sizes an assignment for h may have: the
// domain (a, b, c), the public inputs with ONE, and the aux variables. The
// C layer bounds every size from the host with them before it touches the
// host's memory.
func (h *SRS) AssignmentLimits() (domain, inputs, aux int) {
	return len(h.pk.H) + 1, len(h.pk.IC), len(h.pk.L)
}
