//! supraseal-c2's Rust API over libcuzk: the same items and generic
//! signatures (`SRS::try_new`, `evict`, `Clone`/`Drop`,
//! `generate_groth16_proof`, `start_groth16_proof`/`finish_groth16_proof`,
//! `generate_groth16_proofs`, `alloc_gpu_mutex`/`free_gpu_mutex`), so that a
//! bellperson build can switch provers by changing one dependency. Like
//! supraseal-c2, the proving functions panic with the library's message on
//! failure; `SRS::try_new` returns it.

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

impl From<Error> for String {
    fn from(e: Error) -> String {
        e.message
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
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

/// Frees a mutex from [`alloc_gpu_mutex`].
///
/// # Safety
/// `ptr` must come from [`alloc_gpu_mutex`] and not be freed already.
pub unsafe fn free_gpu_mutex(ptr: *mut c_void) {
    sys::destroy_gpu_mutex(ptr)
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
/// panics with the library's message on failure.
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
) {
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
            -1,
        )
    };
    if let Err(e) = check(err) {
        panic!("{}", String::from(e));
    }
}

/// Starts proving and returns a pending handle for [`finish_groth16_proof`]
/// (or [`drop_pending_proof`]); panics with the library's message on failure.
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
            -1,
            &mut pending,
        )
    };
    if let Err(e) = check(err) {
        panic!("{}", String::from(e));
    }
    pending
}

/// Waits for a pending proof and writes the proofs; consumes the handle.
pub fn finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    let err = unsafe { sys::finalize_groth16_proof_c(handle, proofs.as_mut_ptr() as *mut _) };
    if let Err(e) = check(err) {
        panic!("{}", String::from(e));
    }
}

/// Abandons a pending proof.
///
/// # Safety
/// `handle` must come from [`start_groth16_proof`] and not be used again.
pub unsafe fn drop_pending_proof(handle: *mut c_void) {
    sys::destroy_pending_proof(handle)
}

/// Proves prepared assignments (no external mutex: one process-wide lock).
pub fn generate_groth16_proofs<S, PR>(provers: &[Assignment<S>], r_s: &[S], s_s: &[S], proofs: &mut [PR], srs: &SRS) {
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
    if let Err(e) = check(err) {
        panic!("{}", String::from(e));
    }
}
