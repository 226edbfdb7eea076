package main

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/snarkjs"
)

// loadCircuit reads a circuit in cuzk's format or circom's.
func loadCircuit(path string) (*r1cs.R1CS, error) {
	cs, err := r1cs.Open(path)
	return cs, inputErr(err)
}

// Bounds on the small inputs read whole: far beyond any real file (a
// public.json line is ~80 bytes an input, a proof 192 bytes a partition),
// small enough that a wrong path cannot make a command read gigabytes.
const (
	maxPublicFile = 64 << 20
	maxProofFile  = 64 << 20
	maxConfigFile = 16 << 20
)

func loadPublic(path string) ([]fr.Element, error) {
	data, err := fileio.ReadFile(path, maxPublicFile)
	if err != nil {
		return nil, inputErr(err)
	}
	pub, err := snarkjs.ParsePublic(data)
	return pub, inputErr(err)
}

// loadProof reads a proof file holding exactly one 192-byte proof.
func loadProof(path string) (*params.Proof, error) {
	data, err := fileio.ReadFile(path, maxProofFile)
	if err != nil {
		return nil, inputErr(err)
	}
	proofs, err := params.DecodeProofs(data)
	if err != nil {
		if len(data) > 0 && len(data)%params.ProofSize == 0 {
			// the shape of proofs whose points do not decode: to its user
			// that is an invalid proof (exit 1), not unusable input
			return nil, fmt.Errorf("%w: %s: a point of the proof does not decode (%v)", errInvalidProof, path, err)
		}
		return nil, inputErr(fmt.Errorf("%s: %d bytes is not a proof file (%d bytes a proof, bellperson's compressed A, B, C)", path, len(data), params.ProofSize))
	}
	if len(proofs) != 1 {
		return nil, inputErr(fmt.Errorf("%s holds %d proofs; this command takes one", path, len(proofs)))
	}
	return &proofs[0], nil
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

// loadProveInputs reads a circuit, its witness and its parameters.
func loadProveInputs(circuit, wtns, pkPath string, cfg config.Config, trusted bool) (*r1cs.R1CS, *r1cs.Witness, *params.ProvingKey, error) {
	cs, err := loadCircuit(circuit)
	if err != nil {
		return nil, nil, nil, err
	}
	w, err := cs.ReadCircomWitness(wtns)
	if err != nil {
		return nil, nil, nil, inputErr(err)
	}
	pk, err := readParams(pkPath, cfg, trusted)
	if err != nil {
		return nil, nil, nil, err
	}
	return cs, w, pk, nil
}

// loadVerifyInputs reads a verifying key, one proof and public inputs.
func loadVerifyInputs(vkPath, proofPath, public string) (*params.VerifyingKey, *params.Proof, []fr.Element, error) {
	vk, err := params.ReadVerifyingKey(vkPath, params.Options{})
	if err != nil {
		return nil, nil, nil, inputErr(err)
	}
	proof, err := loadProof(proofPath)
	if err != nil {
		return nil, nil, nil, err
	}
	pub, err := loadPublic(public)
	return vk, proof, pub, err
}
