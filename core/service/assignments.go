package service

import (
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
)

// Pending is an asynchronous supraseal-c2 proof (start/finalize).
type Pending struct {
	s    *Service
	job  uint64
	once sync.Once
}

// StartAssignments submits host-synthesized partitions (supraseal-c2's
// Assignment) proved with h. a, b, c, r and s are copied before it returns; inputs,
// aux and the density bitmaps must stay valid until Finalize or Destroy
// returns. lock, when set, is held with the device's interlock.
func (s *Service) StartAssignments(h *SRS, asgs []*groth16.Assignment, r, sv []fr.Element, lock sync.Locker) (*Pending, error) {
	return s.start(h, asgs, r, sv, lock, true)
}

// start submits; copyABC copies a, b, c first (asynchronous callers may
// free them once start returns; the engine copies them again into its own
// buffers at synthesis, so the synchronous path skips this copy).
func (s *Service) start(h *SRS, asgs []*groth16.Assignment, r, sv []fr.Element, lock sync.Locker, copyABC bool) (*Pending, error) {
	if h == nil || h.pk == nil {
		return nil, errorf(InvalidArgument, "cuzk: null SRS")
	}
	if len(asgs) == 0 || len(r) != len(asgs) || len(sv) != len(asgs) {
		return nil, errorf(InvalidArgument, "cuzk: %d circuits with %d r and %d s values", len(asgs), len(r), len(sv))
	}
	req := engine.Request{Circuit: &engine.Circuit{ID: "srs:" + h.path, PK: h.pk}, Interlock: lock}
	for i, a := range asgs {
		if err := checkAssignment(h.pk, a); err != nil {
			return nil, fmt.Errorf("circuit %d: %w", i, err)
		}
		cp := *a
		if copyABC {
			cp.A, cp.B, cp.C = append([]fr.Element(nil), a.A...), append([]fr.Element(nil), a.B...), append([]fr.Element(nil), a.C...)
		}
		// r and s are copied: bellperson frees r_s and s_s once start returns.
		ri, si := r[i], sv[i]
		req.Partitions = append(req.Partitions, engine.Partition{Assignment: &cp, R: &ri, S: &si})
	}
	job, err := s.submit(req)
	if err != nil {
		return nil, err
	}
	return &Pending{s: s, job: job}, nil
}

// checkAssignment validates a host assignment against the parameters
// before anything runs: sizes, densities, the constant ONE.
func checkAssignment(pk *params.ProvingKey, a *groth16.Assignment) error {
	n := len(pk.H) + 1
	if len(a.A) == 0 || len(a.A) > n || len(a.B) != len(a.A) || len(a.C) != len(a.A) {
		return errorf(InvalidArgument, "cuzk: abc_size %d does not fit the parameters' domain of %d", len(a.A), n)
	}
	if err := groth16.CheckWitness(pk, a.Inputs, a.Aux, a.Density); err != nil {
		return &Error{Code: InvalidArgument, Err: err}
	}
	for _, v := range []struct {
		name string
		v    []fr.Element
	}{{"a", a.A}, {"b", a.B}, {"c", a.C}, {"input", a.Inputs}, {"aux", a.Aux}} {
		if i := CheckReduced(v.v); i >= 0 {
			return errorf(InvalidArgument, "cuzk: %s[%d] is not a reduced field element", v.name, i)
		}
	}
	return nil
}

// ProveAssignments proves and waits; a, b, c must stay valid until it
// returns (they are read once, into the engine's buffers).
func (s *Service) ProveAssignments(h *SRS, asgs []*groth16.Assignment, r, sv []fr.Element, lock sync.Locker) ([]params.Proof, error) {
	p, err := s.start(h, asgs, r, sv, lock, false)
	if err != nil {
		return nil, err
	}
	return p.Finalize()
}

// Finalize waits for the proofs.
func (p *Pending) Finalize() ([]params.Proof, error) {
	var proofs []params.Proof
	err := fmt.Errorf("cuzk: pending proof already finalized or destroyed")
	p.once.Do(func() { proofs, _, err = p.s.await(p.job, 0) })
	return proofs, err
}

// Destroy abandons the proof (cancelling it if it still runs).
func (p *Pending) Destroy() {
	p.once.Do(func() {
		_ = p.s.Cancel(p.job)
		_, _, _ = p.s.await(p.job, 0)
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
