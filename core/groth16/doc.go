// Package groth16 is cuzk's Groth16 prover and verifier over BLS12-381,
// computing exactly what bellperson and supraseal-c2 compute (Groth,
// "On the Size of Pairing-based Non-interactive Arguments",
// https://eprint.iacr.org/2016/260), so that proofs verify against
// Filecoin's parameter files.
//
// Proving from an assignment (the evaluations a = A·z, b = B·z, c = C·z and
// the witness z = [inputs | aux]):
//
//	h:  inverse NTT of a, b, c over the domain of size N (ω from
//	    fr.Generator, the field's 2^32-th root 7^((r-1)/2^32) squared down);
//	    NTT on the coset g·ω^i with g = 7; t = (a·b − c)/(g^N − 1)
//	    pointwise; inverse coset NTT; the first N−1 coefficients are h.
//	A = α + Σ z_i·A_i + r·δ₁        (inputs, then aux with their A-density bit)
//	B = β₂ + Σ z_i·B₂_i + s·δ₂      (B-input-density inputs, then B-aux-density aux)
//	C = Σ h_i·H_i + Σ aux_j·L_j + s·A + r·B₁ − r·s·δ₁
//
// where B₁ is B computed in G1. The multi-scalar multiplications use the
// 0/1 split of package msm.
//
// Where each stage runs on a device (the prep, B_G2, the uploads) is a
// Plan, chosen once; Plan.Run is the one stage driver, run by the engine's
// workers inside their device's interlock and by ProveAssignment alone.
//
// Setup is a deterministic development setup: it derives the toxic waste
// (τ, α, β, γ, δ) from a seed, so anyone who knows the seed can forge
// proofs. It exists for tests, demos and benchmarks; never use its output
// in production.
package groth16
