//! Raw declarations of include/cuzk.h and include/supraseal_c2.h, one to
//! one. Prefer the safe API (the crate root) and the `supraseal` module.
#![allow(non_camel_case_types, non_snake_case)]

use core::ffi::{c_char, c_int, c_void};

pub const CUZK_OK: i32 = 0;
pub const CUZK_FLAG_CANONICAL: u32 = 1;
pub const CUZK_FLAG_TRUSTED_PARAMS: u32 = 2;

#[repr(C)]
pub struct cuzk_error {
    pub code: i32,
    pub message: *mut c_char,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cuzk_witness {
    pub inputs: *const u8,
    pub num_inputs: usize,
    pub aux: *const u8,
    pub num_aux: usize,
}

pub type cuzk_witness_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        partition: usize,
        inputs: *mut u8,
        num_inputs: usize,
        aux: *mut u8,
        num_aux: usize,
    ) -> i32,
>;

#[repr(C)]
pub struct cuzk_request {
    pub circuit_id: *const c_char,
    pub num_partitions: usize,
    pub witnesses: *const cuzk_witness,
    pub witness_fn: cuzk_witness_fn,
    pub witness_user_data: *mut c_void,
    pub flags: u32,
    pub priority: i32,
    pub request_id: *const c_char,
    pub timeout_ms: u64,
    pub r: *const u8,
    pub s: *const u8,
}

#[repr(C)]
pub struct cuzk_result {
    pub proofs: *mut u8,
    pub proofs_len: usize,
    pub report_json: *mut c_char,
}

/// supraseal-c2's error: code 0 is success; message is malloc'ed.
#[repr(C)]
pub struct RustError {
    pub code: i32,
    pub message: *mut c_char,
}

#[repr(C)]
pub struct SRS {
    pub ptr: *const c_void,
}

extern "C" {
    pub fn cuzk_version() -> *const c_char;
    pub fn cuzk_free(p: *mut c_void);
    pub fn cuzk_config(text: *const c_char) -> cuzk_error;
    pub fn cuzk_register_circuit(id: *const c_char, path: *const c_char) -> cuzk_error;
    pub fn cuzk_load_params(id: *const c_char, path: *const c_char, flags: u32) -> cuzk_error;
    pub fn cuzk_evict_params(id: *const c_char) -> cuzk_error;
    pub fn cuzk_prove(req: *const cuzk_request, out: *mut cuzk_result) -> cuzk_error;
    pub fn cuzk_submit(req: *const cuzk_request, job: *mut u64) -> cuzk_error;
    pub fn cuzk_await(job: u64, timeout_ms: u64, out: *mut cuzk_result) -> cuzk_error;
    pub fn cuzk_cancel(job: u64) -> cuzk_error;
    pub fn cuzk_result_free(r: *mut cuzk_result);
    pub fn cuzk_verify(
        id: *const c_char,
        proofs: *const u8,
        proofs_len: usize,
        public: *const u8,
        num_public: usize,
        flags: u32,
    ) -> cuzk_error;
    pub fn cuzk_proof_compress(proofs384: *const c_void, n: usize, out: *mut u8) -> cuzk_error;
    pub fn cuzk_status_json() -> *mut c_char;
    pub fn cuzk_metrics_text() -> *mut c_char;
    pub fn cuzk_set_throttle(raised: c_int);

    pub fn create_gpu_mutex() -> *mut c_void;
    pub fn destroy_gpu_mutex(mtx: *mut c_void);
    pub fn create_SRS(ret: *mut SRS, path: *const c_char, cache: bool) -> RustError;
    pub fn evict_SRS(srs: *const SRS);
    pub fn drop_SRS(srs: *mut SRS);
    pub fn clone_SRS(srs: *const SRS) -> SRS;
    pub fn generate_groth16_proofs_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        proofs: *mut c_void,
        srs: *const SRS,
        gpu_mtx: *mut c_void,
        gpu_index: c_int,
    ) -> RustError;
    pub fn generate_groth16_proofs_start_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        srs: *const SRS,
        gpu_mtx: *mut c_void,
        gpu_index: c_int,
        pending_out: *mut *mut c_void,
    ) -> RustError;
    pub fn finalize_groth16_proof_c(pending: *mut c_void, proofs: *mut c_void) -> RustError;
    pub fn destroy_pending_proof(pending: *mut c_void);

    /// The C library's free, for supraseal-c2 messages.
    pub fn free(p: *mut c_void);
}
