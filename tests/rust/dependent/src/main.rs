//! A crate that depends on `supraseal-c2 = "0.1"` (patched to
//! bindings/rust/supraseal-c2) and calls it the way bellperson's
//! `cuda-supraseal` prover does: the same argument shapes, types with the same
//! layouts as blstrs' (a 32-byte scalar, a 384-byte proof), density words from
//! a bit vector's raw slice. It proves the fixture of tests/rust/run.sh
//! (CUZK_FIXTURE) along every path and checks each proof with cuzk's
//! verifier against the public inputs.
//!
//! run.sh runs the built binary directly, without LD_LIBRARY_PATH: it also
//! shows that a dependent's binary finds libcuzk.so on its own.

use std::ffi::c_void;
use std::path::PathBuf;

use supraseal_c2::SRS;

/// A field element with blstrs' `Scalar` layout: 4 little-endian u64 limbs,
/// Montgomery form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
struct Scalar([u64; 4]);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
struct G1Affine {
    x: [u64; 6],
    y: [u64; 6],
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
struct G2Affine {
    x: [[u64; 6]; 2],
    y: [[u64; 6]; 2],
}

/// bellperson's `Proof<Bls12>`: {a, b, c}, 384 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
struct Proof {
    a: G1Affine,
    b: G2Affine,
    c: G1Affine,
}

/// A bit vector over usize words, least significant bit first (bitvec's
/// `BitVec<usize, Lsb0>` as bellperson's density trackers hold it).
struct BitVec {
    words: Vec<usize>,
    bits: usize,
}

impl BitVec {
    fn as_raw_slice(&self) -> &[usize] {
        &self.words
    }
    fn as_raw_ptr(&self) -> *const usize {
        self.words.as_ptr()
    }
    fn len(&self) -> usize {
        self.bits
    }
}

struct DensityTracker {
    bv: BitVec,
    total_density: usize,
}

impl DensityTracker {
    fn get_total_density(&self) -> usize {
        self.total_density
    }
}

/// bellperson's synthesized circuit: A, B, C evaluations, assignments and
/// the densities of the A and B queries.
struct ProvingAssignment<S> {
    a_aux_density: DensityTracker,
    b_input_density: DensityTracker,
    b_aux_density: DensityTracker,
    a: Vec<S>,
    b: Vec<S>,
    c: Vec<S>,
    input_assignment: Vec<S>,
    aux_assignment: Vec<S>,
}

impl<S> From<&ProvingAssignment<S>> for supraseal_c2::Assignment<S> {
    fn from(p: &ProvingAssignment<S>) -> Self {
        Self {
            a_aux_density: p.a_aux_density.bv.as_raw_ptr(),
            a_aux_bit_len: p.a_aux_density.bv.len(),
            a_aux_popcount: p.a_aux_density.get_total_density(),

            b_inp_density: p.b_input_density.bv.as_raw_ptr(),
            b_inp_bit_len: p.b_input_density.bv.len(),
            b_inp_popcount: p.b_input_density.get_total_density(),

            b_aux_density: p.b_aux_density.bv.as_raw_ptr(),
            b_aux_bit_len: p.b_aux_density.bv.len(),
            b_aux_popcount: p.b_aux_density.get_total_density(),

            a: p.a.as_ptr(),
            b: p.b.as_ptr(),
            c: p.c.as_ptr(),
            abc_size: p.a.len(),

            inp_assignment_data: p.input_assignment.as_ptr(),
            inp_assignment_size: p.input_assignment.len(),

            aux_assignment_data: p.aux_assignment.as_ptr(),
            aux_assignment_size: p.aux_assignment.len(),
        }
    }
}

/// A started proof, dropped with `drop_pending_proof` unless finished, as
/// bellperson's pending handle is.
struct Pending {
    handle: *mut c_void,
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            #[allow(unused_unsafe)]
            unsafe {
                supraseal_c2::drop_pending_proof(self.handle)
            };
            self.handle = std::ptr::null_mut();
        }
    }
}

/// bellperson's wrapper; the safe supraseal-c2 fn called from an unsafe fn.
unsafe fn free_gpu_mutex(ptr: *mut c_void) {
    supraseal_c2::free_gpu_mutex(ptr);
}

fn fixture() -> PathBuf {
    PathBuf::from(std::env::var("CUZK_FIXTURE").expect("CUZK_FIXTURE: run tests/rust/run.sh"))
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn u64s(name: &str) -> Vec<u64> {
    read(name).chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
}

fn scalars(name: &str) -> Vec<Scalar> {
    u64s(name).chunks_exact(4).map(|l| Scalar(l.try_into().unwrap())).collect()
}

fn meta(key: &str) -> usize {
    let js = String::from_utf8(read("assignment.json")).unwrap();
    let pat = format!("\"{key}\":");
    let at = js.find(&pat).unwrap_or_else(|| panic!("no {key}")) + pat.len();
    js[at..].trim_start().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
}

fn density(name: &str, bits: usize, popcount: &str) -> DensityTracker {
    let words = u64s(name).into_iter().map(|w| w as usize).collect();
    DensityTracker { bv: BitVec { words, bits }, total_density: meta(popcount) }
}

fn synthesize() -> ProvingAssignment<Scalar> {
    let (input_assignment, aux_assignment) = (scalars("inputs.bin"), scalars("aux.bin"));
    ProvingAssignment {
        a_aux_density: density("a_aux_density.bin", aux_assignment.len(), "a_aux_popcount"),
        b_input_density: density("b_inp_density.bin", input_assignment.len(), "b_inp_popcount"),
        b_aux_density: density("b_aux_density.bin", aux_assignment.len(), "b_aux_popcount"),
        a: scalars("a.bin"),
        b: scalars("b.bin"),
        c: scalars("c.bin"),
        input_assignment,
        aux_assignment,
    }
}

/// Checks proofs with cuzk's verifier (compressed, against the public inputs
/// without ONE), independently of the supraseal-c2 path that made them.
fn verify(proofs: &[Proof]) {
    let mut compressed = vec![0u8; cuzk::PROOF_SIZE * proofs.len()];
    let e = unsafe {
        cuzk::sys::cuzk_proof_compress(proofs.as_ptr() as *const c_void, proofs.len(), compressed.as_mut_ptr())
    };
    assert_eq!(e.code, 0, "compressing the proofs");
    let prover = cuzk::Prover::new();
    prover.load_params("dependent", &fixture().join("c.params"), false).unwrap();
    let public: Vec<[u8; 32]> = read("inputs.bin").chunks_exact(32).skip(1).map(|c| c.try_into().unwrap()).collect();
    let chunks: Vec<[u8; cuzk::PROOF_SIZE]> =
        compressed.chunks_exact(cuzk::PROOF_SIZE).map(|c| c.try_into().unwrap()).collect();
    let publics: Vec<&[[u8; 32]]> = proofs.iter().map(|_| public.as_slice()).collect();
    prover.verify("dependent", &chunks, &publics, cuzk::Encoding::Montgomery).expect("the proofs verify");
}

fn assert_send_sync<T: Send + Sync>() {}

fn main() {
    const N: usize = 2;
    let provers: Vec<ProvingAssignment<Scalar>> = (0..N).map(|_| synthesize()).collect();
    let r_s: Vec<Scalar> = (0..N as u64).map(|i| Scalar([i + 3, 0, 0, 0])).collect();
    let s_s: Vec<Scalar> = (0..N as u64).map(|i| Scalar([i + 11, 0, 0, 0])).collect();

    // The SRS as bellperson's parameter cache holds it.
    assert_send_sync::<SRS>();
    let _unset = SRS::default();
    let srs = SRS::try_new(fixture().join("c.params"), true).map_err(|e| e.to_string()).unwrap();
    let srs = &srs.clone();

    // generate_groth16_proofs over prepared assignments.
    let provers_c2: Vec<supraseal_c2::Assignment<Scalar>> = provers.iter().map(|p| p.into()).collect();
    let mut proofs = vec![Proof::default(); N];
    supraseal_c2::generate_groth16_proofs(
        provers_c2.as_slice(),
        r_s.as_slice(),
        s_s.as_slice(),
        proofs.as_mut_slice(),
        srs,
    );
    verify(&proofs);
    println!("generate_groth16_proofs: {N} proofs verified");

    // generate_groth16_proof with the evaluations and assignments by pointer,
    // bellperson's synchronous path (no external mutex, any device).
    let input_assignments: Vec<&Vec<Scalar>> = provers.iter().map(|p| &p.input_assignment).collect();
    let aux_assignments: Vec<&Vec<Scalar>> = provers.iter().map(|p| &p.aux_assignment).collect();
    let mut input_assignments_ref: Vec<*const Scalar> = input_assignments.iter().map(|v| v.as_ptr()).collect();
    let mut aux_assignments_ref: Vec<*const Scalar> = aux_assignments.iter().map(|v| v.as_ptr()).collect();
    let a_ref: Vec<*const Scalar> = provers.iter().map(|p| p.a.as_ptr()).collect();
    let b_ref: Vec<*const Scalar> = provers.iter().map(|p| p.b.as_ptr()).collect();
    let c_ref: Vec<*const Scalar> = provers.iter().map(|p| p.c.as_ptr()).collect();
    let mut proofs2 = vec![Proof::default(); N];
    supraseal_c2::generate_groth16_proof(
        a_ref.as_slice(),
        b_ref.as_slice(),
        c_ref.as_slice(),
        provers[0].a.len(),
        input_assignments_ref.as_mut_slice(),
        aux_assignments_ref.as_mut_slice(),
        input_assignments[0].len(),
        aux_assignments[0].len(),
        provers[0].a_aux_density.bv.as_raw_slice(),
        provers[0].b_input_density.bv.as_raw_slice(),
        provers[0].b_aux_density.bv.as_raw_slice(),
        provers[0].a_aux_density.get_total_density(),
        provers[0].b_input_density.get_total_density(),
        provers[0].b_aux_density.get_total_density(),
        N,
        r_s.as_slice(),
        s_s.as_slice(),
        proofs2.as_mut_slice(),
        srs,
        core::ptr::null_mut(),
        -1,
    );
    assert_eq!(proofs2, proofs, "same r, s: the same proofs as generate_groth16_proofs");
    println!("generate_groth16_proof: {N} proofs equal");

    // start/finish with a mutex of our own and a pinned device, as the
    // daemon's GPU workers do; a second start is abandoned.
    let gpu_mtx = supraseal_c2::alloc_gpu_mutex();
    let start = || Pending {
        handle: supraseal_c2::start_groth16_proof(
            a_ref.as_slice(),
            b_ref.as_slice(),
            c_ref.as_slice(),
            provers[0].a.len(),
            input_assignments_ref.as_slice(),
            aux_assignments_ref.as_slice(),
            input_assignments[0].len(),
            aux_assignments[0].len(),
            provers[0].a_aux_density.bv.as_raw_slice(),
            provers[0].b_input_density.bv.as_raw_slice(),
            provers[0].b_aux_density.bv.as_raw_slice(),
            provers[0].a_aux_density.get_total_density(),
            provers[0].b_input_density.get_total_density(),
            provers[0].b_aux_density.get_total_density(),
            N,
            r_s.as_slice(),
            s_s.as_slice(),
            srs,
            gpu_mtx,
            // bellperson passes the index of the GPU it picked; -1 (any
            // device) here, as the test also runs on hosts without a GPU,
            // where include/supraseal_c2.h refuses every gpu_index >= 0.
            -1,
        ),
    };
    let mut pending = start();
    let abandoned = start();
    drop(abandoned);
    let mut proofs3 = vec![Proof::default(); N];
    supraseal_c2::finish_groth16_proof(pending.handle, proofs3.as_mut_slice());
    pending.handle = std::ptr::null_mut();
    assert_eq!(proofs3, proofs, "same r, s: the same proofs from start/finish");
    unsafe { free_gpu_mutex(gpu_mtx) };
    println!("start_groth16_proof/finish_groth16_proof: {N} proofs equal");

    // Errors: bellperson reports them with to_string().
    let missing = fixture().join("missing.params");
    let err: supraseal_c2::cuda::Error = SRS::try_new(missing, false).err().expect("a missing file is an error");
    assert_ne!(err.code, 0);
    let text = err.to_string();
    assert!(text.contains("missing.params"), "{text}");
    let message: String = err.into();
    assert!(!message.is_empty());
    println!("SRS::try_new error: {text}");

    srs.evict();
    println!("ok");
}
