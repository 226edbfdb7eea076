//! Rust binding of libcuzk: a Groth16 prover for BLS12-381 (Filecoin).
//!
//! - [`Prover`]: cuzk's own API (circuits and parameters by id, blocking and
//!   asynchronous proving, verification, status, metrics, throttle).
//! - [`supraseal`]: mirrors supraseal-c2's Rust API, so that a bellperson
//!   build can switch provers by changing one dependency.
//! - [`sys`]: the raw `extern "C"` declarations.
//!
//! Field elements are 32-byte arrays, in Montgomery form by default (the
//! in-memory form of blstrs' `Scalar`), canonical little-endian with
//! [`Encoding::Canonical`].

pub mod supraseal;
pub mod sys;

use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::c_void;
use std::path::Path;
use std::time::Duration;

/// Size of one encoded proof.
pub const PROOF_SIZE: usize = 192;

/// An error from libcuzk: the status code (include/cuzk.h) and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: i32,
    pub message: String,
}

/// Status codes of include/cuzk.h.
pub mod code {
    pub const INVALID_ARGUMENT: i32 = 1;
    pub const NOT_FOUND: i32 = 2;
    pub const BAD_FILE: i32 = 3;
    pub const UNSATISFIED: i32 = 4;
    pub const INVALID_PROOF: i32 = 5;
    pub const CANCELLED: i32 = 6;
    pub const TIMEOUT: i32 = 7;
    pub const BUSY: i32 = 8;
    pub const CONFIG: i32 = 9;
    pub const NOT_VERIFIED: i32 = 10;
    pub const INTERNAL: i32 = 11;
    pub const DEVICE: i32 = 12;
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

impl std::error::Error for Error {}

fn check(e: sys::cuzk_error) -> Result<(), Error> {
    if e.code == sys::CUZK_OK {
        return Ok(());
    }
    let message = if e.message.is_null() {
        String::new()
    } else {
        let m = unsafe { CStr::from_ptr(e.message) }.to_string_lossy().into_owned();
        unsafe { sys::cuzk_free(e.message as *mut c_void) };
        m
    };
    Err(Error { code: e.code, message })
}

fn cstring(s: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| Error { code: code::INVALID_ARGUMENT, message: format!("{s:?} contains a NUL byte") })
}

fn take_string(p: *mut std::os::raw::c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    unsafe { sys::cuzk_free(p as *mut c_void) };
    Some(s)
}

/// How field elements are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Little-endian 64-bit limbs in Montgomery form (blstrs' in-memory Scalar).
    #[default]
    Montgomery,
    /// Canonical little-endian integers below r.
    Canonical,
}

impl Encoding {
    fn flags(self) -> u32 {
        match self {
            Encoding::Montgomery => 0,
            Encoding::Canonical => sys::CUZK_FLAG_CANONICAL,
        }
    }
}

/// Job priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Priority {
    Low = -1,
    #[default]
    Normal = 0,
    High = 1,
    Critical = 2,
}

/// One partition's witness: inputs (the first is ONE) and aux, 32 bytes each.
#[derive(Debug, Clone, Copy)]
pub struct Witness<'a> {
    pub inputs: &'a [[u8; 32]],
    pub aux: &'a [[u8; 32]],
}

/// Options of a proof request.
#[derive(Debug, Clone, Default)]
pub struct ProveOptions {
    pub encoding: Encoding,
    pub priority: Priority,
    pub request_id: Option<String>,
    pub timeout: Option<Duration>,
    /// Fixed randomness (r, s) per partition, for reproducible tests.
    pub randomness: Option<(Vec<[u8; 32]>, Vec<[u8; 32]>)>,
}

/// The process-wide engine (cheap to create; every instance drives the same
/// engine).
#[derive(Debug, Default)]
pub struct Prover {
    _private: (),
}

/// A queued proof; [`Job::wait`] returns its proofs. Dropping a job that was
/// not waited for cancels it.
#[derive(Debug)]
pub struct Job {
    handle: u64,
    done: bool,
}

/// Returns the library version.
pub fn version() -> String {
    unsafe { CStr::from_ptr(sys::cuzk_version()) }.to_string_lossy().into_owned()
}

struct Raw {
    _id: CString,
    _rid: Option<CString>,
    _ws: Vec<sys::cuzk_witness>,
    _r: Vec<u8>,
    _s: Vec<u8>,
    req: sys::cuzk_request,
}

fn request(circuit: &str, witnesses: &[Witness<'_>], opt: &ProveOptions) -> Result<Raw, Error> {
    let id = cstring(circuit)?;
    let rid = opt.request_id.as_deref().map(cstring).transpose()?;
    let ws: Vec<sys::cuzk_witness> = witnesses
        .iter()
        .map(|w| sys::cuzk_witness {
            inputs: w.inputs.as_ptr() as *const u8,
            num_inputs: w.inputs.len(),
            aux: w.aux.as_ptr() as *const u8,
            num_aux: w.aux.len(),
        })
        .collect();
    let (r, s): (Vec<u8>, Vec<u8>) = match &opt.randomness {
        Some((r, s)) => (r.concat(), s.concat()),
        None => (Vec::new(), Vec::new()),
    };
    let req = sys::cuzk_request {
        circuit_id: id.as_ptr(),
        num_partitions: ws.len(),
        witnesses: ws.as_ptr(),
        witness_fn: None,
        witness_user_data: std::ptr::null_mut(),
        flags: opt.encoding.flags(),
        priority: opt.priority as i32,
        request_id: rid.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
        timeout_ms: opt.timeout.map_or(0, |d| d.as_millis() as u64),
        r: if r.is_empty() { std::ptr::null() } else { r.as_ptr() },
        s: if s.is_empty() { std::ptr::null() } else { s.as_ptr() },
    };
    Ok(Raw { _id: id, _rid: rid, _ws: ws, _r: r, _s: s, req })
}

fn proofs(mut res: sys::cuzk_result) -> Vec<[u8; PROOF_SIZE]> {
    let bytes = unsafe { std::slice::from_raw_parts(res.proofs, res.proofs_len) };
    let out = bytes.chunks_exact(PROOF_SIZE).map(|c| c.try_into().unwrap()).collect();
    unsafe { sys::cuzk_result_free(&mut res) };
    out
}

fn empty_result() -> sys::cuzk_result {
    sys::cuzk_result { proofs: std::ptr::null_mut(), proofs_len: 0, report_json: std::ptr::null_mut() }
}

impl Prover {
    /// A handle on the engine with its current configuration.
    pub fn new() -> Self {
        Prover { _private: () }
    }

    /// Configures (or reconfigures, when idle) the engine: TOML or JSON.
    pub fn with_config(text: &str) -> Result<Self, Error> {
        let c = cstring(text)?;
        check(unsafe { sys::cuzk_config(c.as_ptr()) })?;
        Ok(Prover::new())
    }

    pub fn register_circuit(&self, id: &str, r1cs: &Path) -> Result<(), Error> {
        let (i, p) = (cstring(id)?, cstring(&r1cs.to_string_lossy())?);
        check(unsafe { sys::cuzk_register_circuit(i.as_ptr(), p.as_ptr()) })
    }

    pub fn load_params(&self, id: &str, params: &Path, trusted: bool) -> Result<(), Error> {
        let (i, p) = (cstring(id)?, cstring(&params.to_string_lossy())?);
        let flags = if trusted { sys::CUZK_FLAG_TRUSTED_PARAMS } else { 0 };
        check(unsafe { sys::cuzk_load_params(i.as_ptr(), p.as_ptr(), flags) })
    }

    pub fn evict_params(&self, id: &str) -> Result<(), Error> {
        let i = cstring(id)?;
        check(unsafe { sys::cuzk_evict_params(i.as_ptr()) })
    }

    /// Proves one partition per witness and waits; the proofs are verified
    /// by the library unless configured off.
    pub fn prove(&self, circuit: &str, witnesses: &[Witness<'_>], opt: &ProveOptions) -> Result<Vec<[u8; PROOF_SIZE]>, Error> {
        let raw = request(circuit, witnesses, opt)?;
        let mut res = empty_result();
        check(unsafe { sys::cuzk_prove(&raw.req, &mut res) })?;
        Ok(proofs(res))
    }

    /// Queues a request (the witnesses are copied before it returns).
    pub fn submit(&self, circuit: &str, witnesses: &[Witness<'_>], opt: &ProveOptions) -> Result<Job, Error> {
        let raw = request(circuit, witnesses, opt)?;
        let mut handle = 0u64;
        check(unsafe { sys::cuzk_submit(&raw.req, &mut handle) })?;
        Ok(Job { handle, done: false })
    }

    /// Verifies proofs against each proof's public inputs (without ONE).
    pub fn verify(&self, circuit: &str, proofs: &[[u8; PROOF_SIZE]], public: &[&[[u8; 32]]], encoding: Encoding) -> Result<(), Error> {
        if proofs.len() != public.len() || public.windows(2).any(|w| w[0].len() != w[1].len()) {
            return Err(Error { code: code::INVALID_ARGUMENT, message: "one public-input vector of one length per proof".into() });
        }
        let i = cstring(circuit)?;
        let p = proofs.concat();
        let q: Vec<u8> = public.iter().flat_map(|v| v.iter().flatten().copied()).collect();
        let npub = public.first().map_or(0, |v| v.len());
        check(unsafe { sys::cuzk_verify(i.as_ptr(), p.as_ptr(), p.len(), q.as_ptr(), npub, encoding.flags()) })
    }

    /// The library's status document (`cuzk_status_json`: snake_case keys,
    /// durations in seconds; also served at `GET /status` when
    /// `[metrics] listen` is configured).
    pub fn status_json(&self) -> Option<String> {
        take_string(unsafe { sys::cuzk_status_json() })
    }

    /// The Prometheus text (`cuzk_metrics_text`; also `GET /metrics`).
    pub fn metrics_text(&self) -> Option<String> {
        take_string(unsafe { sys::cuzk_metrics_text() })
    }

    pub fn set_throttle(&self, raised: bool) {
        unsafe { sys::cuzk_set_throttle(raised as i32) }
    }
}

impl Job {
    /// Waits for the proofs (None: no limit). On a timeout the job keeps
    /// running and can be waited for again.
    pub fn wait(&mut self, timeout: Option<Duration>) -> Result<Vec<[u8; PROOF_SIZE]>, Error> {
        let mut res = empty_result();
        let ms = timeout.map_or(0, |d| d.as_millis().max(1) as u64);
        let r = check(unsafe { sys::cuzk_await(self.handle, ms, &mut res) });
        match r {
            Err(e) if e.code == code::TIMEOUT => Err(e),
            Err(e) => {
                self.done = true;
                Err(e)
            }
            Ok(()) => {
                self.done = true;
                Ok(proofs(res))
            }
        }
    }

    /// Cancels the job; wait() then reports code::CANCELLED.
    pub fn cancel(&self) -> Result<(), Error> {
        check(unsafe { sys::cuzk_cancel(self.handle) })
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.cancel();
            let mut res = empty_result();
            let _ = check(unsafe { sys::cuzk_await(self.handle, 0, &mut res) });
        }
    }
}
