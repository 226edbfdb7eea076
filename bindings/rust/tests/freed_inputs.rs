//! bellperson's `prove_start` frees r_s, s_s and the A, B, C evaluations as
//! soon as `start_groth16_proof` returns, and keeps only the assignments and
//! the density words until `finish_groth16_proof`. The library must therefore
//! have copied (or consumed) the former before start returns: the proofs
//! finished after they were overwritten and freed are those of the
//! synchronous call with the same r and s, byte for byte.
mod common;

use cuzk::supraseal::{self, SRS};

type Fr = [u64; 4];
type Proof = [u8; 384];

/// A valid field element unlike any of the test's r, s or evaluations: a
/// library that still read the freed memory would prove something else
/// (rather than fail on a non-canonical value).
const JUNK: Fr = [5, 5, 5, 5];

#[test]
fn start_then_free_r_s_and_evaluations() {
    const N: usize = 2;
    let srs = SRS::try_new(common::dir().join("c.params"), true).unwrap();
    let (inputs, aux) = (common::limbs("inputs.bin"), common::limbs("aux.bin"));
    let (ad, bid, bad) =
        (common::words("a_aux_density.bin"), common::words("b_inp_density.bin"), common::words("b_aux_density.bin"));
    let popcounts = [common::meta("a_aux_popcount"), common::meta("b_inp_popcount"), common::meta("b_aux_popcount")];
    let r: Vec<Fr> = (0..N as u64).map(|i| [i + 2, 0, 0, 0]).collect();
    let s: Vec<Fr> = (0..N as u64).map(|i| [i + 9, 0, 0, 0]).collect();
    // One allocation per circuit, as bellperson's provers each own theirs.
    let evals = |name: &str| -> Vec<Vec<Fr>> { (0..N).map(|_| common::limbs(name)).collect() };
    let (mut a, mut b, mut c) = (evals("a.bin"), evals("b.bin"), evals("c.bin"));
    let ptrs = |v: &Vec<Vec<Fr>>| -> Vec<*const Fr> { v.iter().map(|x| x.as_ptr()).collect() };
    let size = a[0].len();
    let input_refs = vec![inputs.as_ptr(); N];
    let aux_refs = vec![aux.as_ptr(); N];

    let mut want = vec![[0u8; 384]; N];
    supraseal::generate_groth16_proof(
        &ptrs(&a),
        &ptrs(&b),
        &ptrs(&c),
        size,
        &input_refs,
        &aux_refs,
        inputs.len(),
        aux.len(),
        &ad,
        &bid,
        &bad,
        popcounts[0],
        popcounts[1],
        popcounts[2],
        N,
        &r,
        &s,
        &mut want,
        &srs,
        std::ptr::null_mut(),
        -1,
    );

    let (mut r2, mut s2) = (r.clone(), s.clone());
    let handle = supraseal::start_groth16_proof(
        &ptrs(&a),
        &ptrs(&b),
        &ptrs(&c),
        size,
        &input_refs,
        &aux_refs,
        inputs.len(),
        aux.len(),
        &ad,
        &bid,
        &bad,
        popcounts[0],
        popcounts[1],
        popcounts[2],
        N,
        &r2,
        &s2,
        &srs,
        std::ptr::null_mut(),
        -1,
    );
    // What prove_start does, made visible: overwrite, then free.
    for v in a.iter_mut().chain(b.iter_mut()).chain(c.iter_mut()) {
        v.fill(JUNK);
    }
    r2.fill(JUNK);
    s2.fill(JUNK);
    drop((a, b, c, r2, s2));
    // Reuse the freed blocks with junk of the same sizes.
    let reuse: Vec<Vec<Fr>> = (0..3 * N).map(|_| vec![JUNK; size]).chain((0..2).map(|_| vec![JUNK; N])).collect();

    let mut got: Vec<Proof> = vec![[0u8; 384]; N];
    supraseal::finish_groth16_proof(handle, &mut got);
    drop(reuse);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(g == w, "proof {i}: finished after r_s, s_s, a, b, c were freed, it differs from the synchronous one");
    }
}
