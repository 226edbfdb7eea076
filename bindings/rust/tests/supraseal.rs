//! The supraseal-c2 compatible module: same calls as supraseal-c2's Rust
//! API, proofs checked with cuzk's verifier.
mod common;

use std::os::raw::c_void;
use std::sync::Arc;

use cuzk::supraseal::{self, Assignment, SRS};
use cuzk::{Encoding, Prover};

type Fr = [u64; 4];
type Proof = [u8; 384];

struct Fixture {
    a: Vec<Fr>,
    b: Vec<Fr>,
    c: Vec<Fr>,
    inputs: Vec<Fr>,
    aux: Vec<Fr>,
    ad: Vec<usize>,
    bid: Vec<usize>,
    bad: Vec<usize>,
}

fn fixture() -> Fixture {
    Fixture {
        a: common::limbs("a.bin"),
        b: common::limbs("b.bin"),
        c: common::limbs("c.bin"),
        inputs: common::limbs("inputs.bin"),
        aux: common::limbs("aux.bin"),
        ad: common::words("a_aux_density.bin"),
        bid: common::words("b_inp_density.bin"),
        bad: common::words("b_aux_density.bin"),
    }
}

fn verify(proofs: &[Proof]) {
    let mut enc = vec![0u8; 192 * proofs.len()];
    let e = unsafe { cuzk::sys::cuzk_proof_compress(proofs.as_ptr() as *const c_void, proofs.len(), enc.as_mut_ptr()) };
    assert_eq!(e.code, 0);
    let p = Prover::new();
    p.load_params("supraseal", &common::dir().join("c.params"), false).unwrap();
    let inputs = common::elements("inputs.bin");
    let public: Vec<&[[u8; 32]]> = (0..proofs.len()).map(|_| &inputs[1..]).collect();
    let chunks: Vec<[u8; 192]> = enc.chunks_exact(192).map(|c| c.try_into().unwrap()).collect();
    p.verify("supraseal", &chunks, &public, Encoding::Montgomery).unwrap();
}

fn scalar(v: u64) -> Fr {
    [v, 0, 0, 0]
}

fn prove_n(f: &Fixture, srs: &SRS, n: usize, mtx: *mut c_void) -> Vec<Proof> {
    let ptrs = |v: &Vec<Fr>| vec![v.as_ptr(); n];
    let mut proofs = vec![[0u8; 384]; n];
    let r: Vec<Fr> = (0..n as u64).map(|i| scalar(i + 1)).collect();
    let s: Vec<Fr> = (0..n as u64).map(|i| scalar(i + 7)).collect();
    supraseal::generate_groth16_proof(
        &ptrs(&f.a), &ptrs(&f.b), &ptrs(&f.c), f.a.len(),
        &ptrs(&f.inputs), &ptrs(&f.aux), f.inputs.len(), f.aux.len(),
        &f.ad, &f.bid, &f.bad,
        common::meta("a_aux_popcount"), common::meta("b_inp_popcount"), common::meta("b_aux_popcount"),
        n, &r, &s, &mut proofs, srs, mtx, -1,
    );
    proofs
}

#[test]
fn generate_and_start_finish() {
    let f = fixture();
    let srs = SRS::try_new(common::dir().join("c.params"), true).unwrap();
    let copy = srs.clone();
    let proofs = prove_n(&f, &copy, 2, std::ptr::null_mut());
    verify(&proofs);

    let ptrs = |v: &Vec<Fr>| vec![v.as_ptr(); 1];
    let pending = supraseal::start_groth16_proof(
        &ptrs(&f.a), &ptrs(&f.b), &ptrs(&f.c), f.a.len(),
        &ptrs(&f.inputs), &ptrs(&f.aux), f.inputs.len(), f.aux.len(),
        &f.ad, &f.bid, &f.bad,
        common::meta("a_aux_popcount"), common::meta("b_inp_popcount"), common::meta("b_aux_popcount"),
        1, &[scalar(1)], &[scalar(7)], &srs, std::ptr::null_mut(), -1,
    );
    let mut out = vec![[0u8; 384]; 1];
    supraseal::finish_groth16_proof(pending, &mut out);
    assert_eq!(out[0], proofs[0], "same r, s: same proof as the blocking call");

    let provers = vec![Assignment::<Fr> {
        a_aux_density: f.ad.as_ptr(), a_aux_bit_len: f.aux.len(), a_aux_popcount: common::meta("a_aux_popcount"),
        b_inp_density: f.bid.as_ptr(), b_inp_bit_len: f.inputs.len(), b_inp_popcount: common::meta("b_inp_popcount"),
        b_aux_density: f.bad.as_ptr(), b_aux_bit_len: f.aux.len(), b_aux_popcount: common::meta("b_aux_popcount"),
        a: f.a.as_ptr(), b: f.b.as_ptr(), c: f.c.as_ptr(), abc_size: f.a.len(),
        inp_assignment_data: f.inputs.as_ptr(), inp_assignment_size: f.inputs.len(),
        aux_assignment_data: f.aux.as_ptr(), aux_assignment_size: f.aux.len(),
    }];
    let mut out2 = vec![[0u8; 384]; 1];
    supraseal::generate_groth16_proofs(&provers, &[scalar(1)], &[scalar(7)], &mut out2, &srs);
    assert_eq!(out2[0], proofs[0]);
    srs.evict();
}

#[test]
fn eight_threads_one_mutex() {
    let f = Arc::new(fixture());
    let srs = Arc::new(SRS::try_new(common::dir().join("c.params"), true).unwrap());
    let mtx = supraseal::alloc_gpu_mutex() as usize;
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let (f, srs) = (f.clone(), srs.clone());
            std::thread::spawn(move || prove_n(&f, &srs, 1, mtx as *mut c_void))
        })
        .collect();
    for h in handles {
        verify(&h.join().unwrap());
    }
    supraseal::free_gpu_mutex(mtx as *mut c_void);
}

#[test]
fn errors() {
    let err = SRS::try_new(common::dir().join("missing.params"), false).err().expect("missing file is an error");
    assert_ne!(err.code, 0);
    assert!(String::from(err).contains("missing.params"));
    let f = fixture();
    let srs = SRS::try_new(common::dir().join("c.params"), false).unwrap();
    let r = std::panic::catch_unwind(|| {
        let ptrs = |v: &Vec<Fr>| vec![v.as_ptr(); 1];
        let mut proofs = vec![[0u8; 384]; 1];
        supraseal::generate_groth16_proof(
            &ptrs(&f.a), &ptrs(&f.b), &ptrs(&f.c), f.a.len(),
            &ptrs(&f.inputs), &ptrs(&f.aux), f.inputs.len(), f.aux.len(),
            &f.ad, &f.bid, &f.bad,
            common::meta("a_aux_popcount") + 1, common::meta("b_inp_popcount"), common::meta("b_aux_popcount"),
            1, &[scalar(1)], &[scalar(2)], &mut proofs, &srs, std::ptr::null_mut(), -1,
        );
    });
    let msg = r.expect_err("a wrong popcount panics, as in supraseal-c2");
    let text = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("popcount"), "{text}");
}
