//! Proves and verifies a Groth16 proof with the cuzk API, end to end:
//! register a circuit, load its parameters, prove two partitions, verify
//! them against their public inputs, and see a wrong public input rejected.
//!
//! ```text
//! cargo run --offline --example prove            # a generated 512-constraint circuit
//! cargo run --offline --example prove -- DIR     # your own files
//! ```
//!
//! DIR holds `c.r1cs` (a cuzk circuit), `c.params` (its parameters) and the
//! witness as `inputs.bin` (ONE first, then the public inputs) and `aux.bin`:
//! 32-byte field elements in Montgomery form, as `cuzk dump-assignment`
//! writes them. Without DIR, the tests' fixture is used (generated with the
//! repository's bin/cuzk on first use; see tests/common/fixture.rs).
#[path = "../tests/common/fixture.rs"]
mod fixture;

use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Instant;

use cuzk::{code, Encoding, ProveOptions, Prover, Witness};

/// A file of 32-byte field elements.
fn elements(path: &Path) -> Result<Vec<[u8; 32]>, Box<dyn Error>> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() % 32 != 0 {
        return Err(format!("{}: {} bytes is not a whole number of 32-byte elements", path.display(), bytes.len()).into());
    }
    Ok(bytes.chunks_exact(32).map(|c| c.try_into().unwrap()).collect())
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = std::env::args_os().nth(1).map(PathBuf::from).unwrap_or_else(fixture::dir);
    println!("cuzk {} — files from {}", cuzk::version(), dir.display());

    let prover = Prover::new();
    let t = Instant::now();
    prover.register_circuit("example", &dir.join("c.r1cs"))?;
    // Untrusted: the library checks every point of the file as it loads it.
    prover.load_params("example", &dir.join("c.params"), false)?;
    println!("circuit registered and parameters loaded in {:.2?}", t.elapsed());

    let inputs = elements(&dir.join("inputs.bin"))?;
    let aux = elements(&dir.join("aux.bin"))?;
    let witness = Witness { inputs: &inputs, aux: &aux };

    // Two partitions of the same circuit in one request (here the same
    // witness twice; a real host gives one witness per partition).
    let t = Instant::now();
    let proofs = prover.prove("example", &[witness, witness], &ProveOptions::default())?;
    println!("{} proofs of {} bytes in {:.2?}", proofs.len(), proofs[0].len(), t.elapsed());

    // The verifier takes each proof's public inputs without the leading ONE.
    let public = &inputs[1..];
    prover.verify("example", &proofs, &[public, public], Encoding::Montgomery)?;
    println!("verified against {} public input(s)", public.len());

    let mut wrong = public.to_vec();
    if let Some(first) = wrong.first_mut() {
        first[0] ^= 1;
        match prover.verify("example", &proofs[..1], &[&wrong], Encoding::Montgomery) {
            Err(e) if e.code == code::INVALID_PROOF => println!("a changed public input is rejected: {e}"),
            other => return Err(format!("a changed public input should be rejected as an invalid proof, got {other:?}").into()),
        }
    }
    Ok(())
}
