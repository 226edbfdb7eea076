//! supraseal-c2's Rust API over libcuzk: the same items and generic
//! signatures (`SRS::try_new`, `evict`, `Clone`/`Drop`,
//! `generate_groth16_proof`, `start_groth16_proof`/`finish_groth16_proof`,
//! `generate_groth16_proofs`, `alloc_gpu_mutex`/`free_gpu_mutex`), so that a
//! bellperson build can switch provers by changing one dependency (the
//! `supraseal-c2` crate in bindings/rust/supraseal-c2 re-exports this module
//! at its root under that name). Like supraseal-c2, the proving functions
//! panic with the library's message on failure; `SRS::try_new` returns it.
//!
//! The scalar type `S` must be 32 bytes (blstrs' `Scalar`, Montgomery form)
//! and the proof type `PR` 384 bytes (`{G1 a; G2 b; G1 c}` affine, as in
//! include/supraseal_c2.h); both are checked, since a wrong type would
//! otherwise make the library read or write out of bounds.
//!
//! The GPU mutex and pending-proof handles are taken as raw pointers by safe
//! fns, as in supraseal-c2. That is sound here: libcuzk never dereferences
//! them, it looks them up in its handle table, so a pointer it did not hand
//! out is an error (or, for the two frees, ignored).
// The signatures are supraseal-c2's; see the paragraph above.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::ffi::{CStr, CString};
use std::os::raw::c_void;
use std::path::PathBuf;

use crate::sys;

/// supraseal-c2's error (sppark's `cuda::Error`): a code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: i32,
    message: String,
}

impl From<sys::RustError> for Error {
    fn from(e: sys::RustError) -> Self {
        let message = if e.message.is_null() {
            String::new()
        } else {
            let m = unsafe { CStr::from_ptr(e.message) }.to_string_lossy().into_owned();
            unsafe { sys::free(e.message as *mut c_void) };
            m
        };
        Error { code: e.code, message }
    }
}

/// The message; a library error without one (a NULL message) reads as its
/// code, so that a panic never says nothing.
impl From<Error> for String {
    fn from(e: Error) -> String {
        if e.message.is_empty() {
            format!("supraseal-c2 error code {}", e.code)
        } else {
            e.message
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.message.is_empty() {
            write!(f, "supraseal-c2 error code {}", self.code)
        } else {
            write!(f, "{} (code {})", self.message, self.code)
        }
    }
}

impl std::error::Error for Error {}

fn check(e: sys::RustError) -> Result<(), Error> {
    if e.code == 0 {
        Ok(())
    } else {
        Err(e.into())
    }
}

/// A reference-counted parameter set (supraseal-c2's SRS).
#[repr(C)]
pub struct SRS {
    ptr: *const c_void,
}

impl Default for SRS {
    fn default() -> Self {
        SRS { ptr: std::ptr::null() }
    }
}

impl SRS {
    /// Loads a .params file; with cache, one SRS is shared per path.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, Error> {
        let path = CString::new(srs_path.to_string_lossy().as_bytes())
            .map_err(|_| Error { code: crate::code::INVALID_ARGUMENT, message: "path contains a NUL byte".into() })?;
        let mut ret = SRS::default();
        let mut raw = sys::SRS { ptr: std::ptr::null() };
        check(unsafe { sys::create_SRS(&mut raw, path.as_ptr(), cache) })?;
        ret.ptr = raw.ptr;
        Ok(ret)
    }

    /// Removes the SRS from the cache (handles stay valid).
    pub fn evict(&self) {
        unsafe { sys::evict_SRS(self.raw()) }
    }

    fn raw(&self) -> *const sys::SRS {
        self as *const SRS as *const sys::SRS
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            unsafe { sys::drop_SRS(self as *mut SRS as *mut sys::SRS) };
            self.ptr = std::ptr::null();
        }
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        let raw = unsafe { sys::clone_SRS(self.raw()) };
        SRS { ptr: raw.ptr }
    }
}

unsafe impl Sync for SRS {}
unsafe impl Send for SRS {}

/// One circuit's host-synthesized assignment (17 machine words).
#[repr(C)]
pub struct Assignment<Scalar> {
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

/// Allocates a GPU mutex for `gpu_mtx`; free it with [`free_gpu_mutex`].
pub fn alloc_gpu_mutex() -> *mut c_void {
    unsafe { sys::create_gpu_mutex() }
}

/// Frees a mutex from [`alloc_gpu_mutex`] (any other pointer is ignored);
/// no call may be using it.
pub fn free_gpu_mutex(ptr: *mut c_void) {
    unsafe { sys::destroy_gpu_mutex(ptr) }
}

/// The element sizes the C ABI reads and writes through S and PR.
fn check_sizes<S, PR>() {
    assert_eq!(std::mem::size_of::<S>(), 32, "the scalar type must be 32 bytes (fr_t)");
    assert_eq!(std::mem::size_of::<PR>(), 384, "the proof type must be 384 bytes (groth16_proof)");
}

fn or_panic(e: sys::RustError) {
    if let Err(e) = check(e) {
        panic!("{}", String::from(e));
    }
}

#[allow(clippy::too_many_arguments)]
fn assignments<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
) -> Vec<Assignment<S>> {
    assert_eq!(ntt_a_scalars.len(), num_circuits);
    assert_eq!(ntt_b_scalars.len(), num_circuits);
    assert_eq!(ntt_c_scalars.len(), num_circuits);
    assert_eq!(input_assignments.len(), num_circuits);
    assert_eq!(aux_assignments.len(), num_circuits);
    assert_eq!(std::mem::size_of::<S>(), 32, "the scalar type must be 32 bytes (fr_t)");
    assert_eq!(std::mem::size_of::<D>() * 8, 64, "only 64-bit elements in bit vectors are supported");
    assert!(a_aux_density_bv.len() * 64 >= aux_assignments_size);
    assert!(b_g1_aux_density_bv.len() * 64 >= aux_assignments_size);
    (0..num_circuits)
        .map(|c| Assignment::<S> {
            a_aux_density: a_aux_density_bv.as_ptr() as *const _,
            a_aux_bit_len: aux_assignments_size,
            a_aux_popcount: a_aux_total_density,
            b_inp_density: b_g1_input_density_bv.as_ptr() as *const _,
            b_inp_bit_len: input_assignments_size,
            b_inp_popcount: b_g1_input_total_density,
            b_aux_density: b_g1_aux_density_bv.as_ptr() as *const _,
            b_aux_bit_len: aux_assignments_size,
            b_aux_popcount: b_g1_aux_total_density,
            a: ntt_a_scalars[c],
            b: ntt_b_scalars[c],
            c: ntt_c_scalars[c],
            abc_size: ntt_scalars_actual_size,
            inp_assignment_data: input_assignments[c],
            inp_assignment_size: input_assignments_size,
            aux_assignment_data: aux_assignments[c],
            aux_assignment_size: aux_assignments_size,
        })
        .collect()
}

/// Proves `num_circuits` circuits from their evaluations and assignments;
/// panics with the library's message on failure. `gpu_mtx` NULL means one
/// process-wide lock; `gpu_index` -1 means any device.
#[allow(clippy::too_many_arguments)]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) {
    check_sizes::<S, PR>();
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    assert_eq!(proofs.len(), num_circuits);
    let provers = assignments(
        ntt_a_scalars, ntt_b_scalars, ntt_c_scalars, ntt_scalars_actual_size, input_assignments, aux_assignments,
        input_assignments_size, aux_assignments_size, a_aux_density_bv, b_g1_input_density_bv, b_g1_aux_density_bv,
        a_aux_total_density, b_g1_input_total_density, b_g1_aux_total_density, num_circuits,
    );
    let err = unsafe {
        sys::generate_groth16_proofs_c(
            provers.as_ptr() as *const _,
            num_circuits,
            r_s.as_ptr() as *const _,
            s_s.as_ptr() as *const _,
            proofs.as_mut_ptr() as *mut _,
            srs.raw(),
            gpu_mtx,
            gpu_index,
        )
    };
    or_panic(err);
}

/// Starts proving and returns a pending handle for [`finish_groth16_proof`]
/// (or [`drop_pending_proof`]); panics with the library's message on failure.
/// a, b, c, `r_s` and `s_s` may be freed when it returns; the assignments and
/// density words must live until the handle is finished or dropped. Freeing
/// GiB-size a, b, c while the proof runs slows it (the unmapping stalls the
/// threads driving the GPU: +0.13 s a 2^26 circuit on an H200), so drop
/// them after [`finish_groth16_proof`] where the caller can.
#[allow(clippy::too_many_arguments)]
pub fn start_groth16_proof<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    let provers = assignments(
        ntt_a_scalars, ntt_b_scalars, ntt_c_scalars, ntt_scalars_actual_size, input_assignments, aux_assignments,
        input_assignments_size, aux_assignments_size, a_aux_density_bv, b_g1_input_density_bv, b_g1_aux_density_bv,
        a_aux_total_density, b_g1_input_total_density, b_g1_aux_total_density, num_circuits,
    );
    let mut pending: *mut c_void = std::ptr::null_mut();
    let err = unsafe {
        sys::generate_groth16_proofs_start_c(
            provers.as_ptr() as *const _,
            num_circuits,
            r_s.as_ptr() as *const _,
            s_s.as_ptr() as *const _,
            srs.raw(),
            gpu_mtx,
            gpu_index,
            &mut pending,
        )
    };
    or_panic(err);
    pending
}

/// Waits for a pending proof and writes the proofs; consumes the handle.
/// `proofs` must hold the started call's `num_circuits` proofs.
pub fn finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    check_sizes::<[u64; 4], PR>();
    or_panic(unsafe { sys::finalize_groth16_proof_c(handle, proofs.as_mut_ptr() as *mut _) });
}

/// Abandons a pending proof from [`start_groth16_proof`]; the handle is not
/// valid afterwards (the library ignores a handle it does not know).
pub fn drop_pending_proof(handle: *mut c_void) {
    unsafe { sys::destroy_pending_proof(handle) }
}

/// Proves prepared assignments (no external mutex: one process-wide lock).
pub fn generate_groth16_proofs<S, PR>(provers: &[Assignment<S>], r_s: &[S], s_s: &[S], proofs: &mut [PR], srs: &SRS) {
    check_sizes::<S, PR>();
    let n = provers.len();
    assert_eq!(r_s.len(), n);
    assert_eq!(s_s.len(), n);
    assert_eq!(proofs.len(), n);
    let err = unsafe {
        sys::generate_groth16_proofs_c(
            provers.as_ptr() as *const _,
            n,
            r_s.as_ptr() as *const _,
            s_s.as_ptr() as *const _,
            proofs.as_mut_ptr() as *mut _,
            srs.raw(),
            std::ptr::null_mut(),
            -1,
        )
    };
    or_panic(err);
}
