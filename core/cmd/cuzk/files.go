package main

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/filekind"
	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/snarkjs"
)

// Bounds on the small inputs read whole: far beyond any real file (a
// public.json line is ~80 bytes an input, a proof 192 bytes a partition,
// a snarkjs key ~200 bytes an input), small enough that a wrong path
// cannot make a command read gigabytes.
const (
	maxPublicFile = 64 << 20
	maxProofFile  = 64 << 20
	maxConfigFile = 16 << 20
	maxVKJSON     = 512 << 20
)

// input is a file flag of the command line and the kinds of file it takes
// (filekind.Expect): a reader's failure on a file of another kind says
// what the file is and what the flag takes.
type input struct{ filekind.Expect }

func flagIn(flag string, kinds ...filekind.Kind) input {
	return input{filekind.Expect{Name: flag, Kinds: kinds}}
}

var (
	paramsIn  = flagIn("--params", filekind.Params)
	anyVKIn   = flagIn("--params", filekind.Params, filekind.VerifyingKey)
	vkIn      = flagIn("--vk", filekind.Params, filekind.VerifyingKey, filekind.SnarkjsVerifyingKey)
	proofIn   = flagIn("--proof", filekind.Proofs, filekind.SnarkjsProof)
	publicIn  = flagIn("--public", filekind.SnarkjsPublic)
	circuitIn = flagIn("--r1cs", filekind.CircomR1CS, filekind.CuzkCircuit)
	witnessIn = flagIn("--wtns", filekind.CircomWitness)
	configIn  = input{filekind.Expect{Name: "--config", Want: "a configuration (TOML or JSON)"}}
)

// failed turns a reader's error on path into the command's: bad input,
// naming the file, and its kind when it is not one the flag takes.
func (in input) failed(path string, err error) error {
	return inputErr(in.Explain(path, err))
}

// check is failed for a file already sniffed.
func (in input) check(path string, info filekind.Info, err error) error {
	return inputErr(in.ExplainInfo(path, info, err))
}

// readSmall reads a small input whole, naming the file's kind when it is
// too large for what the flag takes.
func (in input) readSmall(path string, limit int64) ([]byte, error) {
	data, err := fileio.ReadFile(path, limit)
	if err != nil {
		return nil, in.failed(path, err)
	}
	return data, nil
}

// loadCircuit reads a circuit in cuzk's format or circom's.
func loadCircuit(path string) (*r1cs.R1CS, error) {
	cs, err := r1cs.Open(path)
	if err != nil {
		return nil, circuitIn.failed(path, err)
	}
	return cs, nil
}

// loadWitness reads a circom witness for cs.
func loadWitness(cs *r1cs.R1CS, path string) (*r1cs.Witness, error) {
	w, err := cs.ReadCircomWitness(path)
	if err != nil {
		return nil, witnessIn.failed(path, err)
	}
	return w, nil
}

// loadPublic reads snarkjs's public.json.
func loadPublic(path string) ([]fr.Element, error) {
	data, err := publicIn.readSmall(path, maxPublicFile)
	if err != nil {
		return nil, err
	}
	pub, err := snarkjs.ParsePublic(data)
	if err != nil {
		return nil, publicIn.check(path, filekind.Sniff(data), err)
	}
	return pub, nil
}

// loadProof reads one proof: a file holding exactly one 192-byte proof, or
// snarkjs's proof.json.
func loadProof(path string) (*params.Proof, error) {
	data, err := proofIn.readSmall(path, maxProofFile)
	if err != nil {
		return nil, err
	}
	info := filekind.Sniff(data)
	if info.Kind == filekind.SnarkjsProof {
		p, err := snarkjs.ParseProof(data)
		switch {
		case errors.Is(err, params.ErrNotOnCurve) || errors.Is(err, params.ErrNotInGroup):
			// well-formed, but its points are not the curve's: an invalid
			// proof, as for the binary encoding
			return nil, fmt.Errorf("%w: %s: %v", errInvalidProof, path, err)
		case err != nil:
			return nil, proofIn.check(path, info, err)
		}
		return p, nil
	}
	proofs, err := params.DecodeProofs(data)
	if err != nil {
		if (proofIn.Takes(info.Kind) || info.Kind == filekind.Unknown) && len(data) > 0 && len(data)%params.ProofSize == 0 {
			// the shape of proofs whose points do not decode: to its user
			// that is an invalid proof (exit 1), not unusable input
			return nil, fmt.Errorf("%w: %s: a point of the proof does not decode (%v)", errInvalidProof, path, err)
		}
		return nil, proofIn.check(path, info, fmt.Errorf("%d bytes is not a proof file (%d bytes a proof, bellperson's compressed A, B, C)", len(data), params.ProofSize))
	}
	if len(proofs) != 1 {
		return nil, inputErr(fmt.Errorf("%s holds %d proofs; this command takes one", path, len(proofs)))
	}
	return &proofs[0], nil
}

// loadVerifyingKey reads a verifying key: a .vk, a whole parameter file's
// prefix, or snarkjs's verification_key.json.
func loadVerifyingKey(in input, path string) (*params.VerifyingKey, error) {
	info, err := filekind.SniffFile(path)
	if err != nil {
		return nil, inputErr(err)
	}
	if info.Kind == filekind.SnarkjsVerifyingKey && in.Takes(info.Kind) {
		data, err := in.readSmall(path, maxVKJSON)
		if err != nil {
			return nil, err
		}
		vk, err := snarkjs.ParseVerifyingKey(data)
		if err != nil {
			return nil, in.check(path, info, err)
		}
		return vk, nil
	}
	vk, err := params.ReadVerifyingKey(path, params.Options{})
	if err != nil {
		return nil, in.check(path, info, err)
	}
	return vk, nil
}

// writeFile writes every output of the command line: through a temporary
// file and a rename (see fileio.WriteAtomic), so a killed run or a full
// disk leaves the old file or the new one, and a symbolic link at path is
// replaced, its target untouched.
func writeFile(path string, data []byte) error {
	if err := fileio.WriteFileAtomic(path, data); err != nil {
		return inputErr(err)
	}
	return nil
}

// loadVerifyInputs reads a verifying key, one proof and public inputs.
func loadVerifyInputs(vkPath, proofPath, public string) (*params.VerifyingKey, *params.Proof, []fr.Element, error) {
	vk, err := loadVerifyingKey(vkIn, vkPath)
	if err != nil {
		return nil, nil, nil, err
	}
	proof, err := loadProof(proofPath)
	if err != nil {
		return nil, nil, nil, err
	}
	pub, err := loadPublic(public)
	return vk, proof, pub, err
}

// loadProveInputs reads a circuit, its witness and its parameters, each a
// stage of the meter's summary.
func loadProveInputs(m *meter, e *engine.Engine, circuit, wtns, pkPath string, cfg config.Config, trusted bool) (cs *r1cs.R1CS, w *r1cs.Witness, pk *params.ProvingKey, err error) {
	if err = m.stage("load circuit", func() (err error) { cs, err = loadCircuit(circuit); return }); err != nil {
		return nil, nil, nil, err
	}
	prefillOne(e, cs)
	if err = m.stage("load witness", func() (err error) { w, err = loadWitness(cs, wtns); return }); err != nil {
		return nil, nil, nil, err
	}
	if pk, err = readParams(m, pkPath, cfg, trusted, e.SubgroupChecker()); err != nil {
		return nil, nil, nil, err
	}
	return cs, w, pk, nil
}
