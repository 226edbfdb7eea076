//! supraseal-c2's Rust API, served by libcuzk.
//!
//! The items at this crate's root are those of the `supraseal-c2` 0.1 crate
//! that bellperson's `cuda-supraseal` prover calls, with the same generic
//! signatures, so that a build switches provers with a `[patch.crates-io]`
//! entry and no code change (see README.md). They are the
//! `cuzk::supraseal` module, re-exported: this crate holds no logic.
//!
//! As in supraseal-c2, the proving functions panic with the library's
//! message on failure and `SRS::try_new` returns a [`cuda::Error`].
//!
//! The binary that links this crate loads libcuzk.so by the absolute path it
//! was linked against (the cuzk crate's build script); see README.md.

pub use cuzk::supraseal::{
    alloc_gpu_mutex, drop_pending_proof, finish_groth16_proof, free_gpu_mutex, generate_groth16_proof,
    generate_groth16_proofs, start_groth16_proof, Assignment, Error, SRS,
};

/// Where supraseal-c2 (through sppark) names its error type.
pub mod cuda {
    pub use cuzk::supraseal::Error;
}
