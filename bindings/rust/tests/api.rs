//! The safe API against the fixture: prove, verify, async, errors.
mod common;

use cuzk::{code, Encoding, ProveOptions, Prover, Witness};

fn setup() -> (Prover, Vec<[u8; 32]>, Vec<[u8; 32]>) {
    let p = Prover::new();
    p.register_circuit("rust", &common::dir().join("c.r1cs")).unwrap();
    p.load_params("rust", &common::dir().join("c.params"), false).unwrap();
    (p, common::elements("inputs.bin"), common::elements("aux.bin"))
}

#[test]
fn prove_and_verify() {
    let (p, inputs, aux) = setup();
    let w = Witness { inputs: &inputs, aux: &aux };
    let proofs = p.prove("rust", &[w, w], &ProveOptions::default()).unwrap();
    assert_eq!(proofs.len(), 2);
    let public = &inputs[1..];
    p.verify("rust", &proofs, &[public, public], Encoding::Montgomery).unwrap();
    let mut wrong = public.to_vec();
    wrong[0][0] ^= 1;
    let err = p.verify("rust", &proofs[..1], &[&wrong], Encoding::Montgomery).unwrap_err();
    assert_eq!(err.code, code::INVALID_PROOF);

    let mut fixed = ProveOptions::default();
    let one = |v: u8| {
        let mut e = [0u8; 32];
        e[0] = v;
        e
    };
    fixed.randomness = Some((vec![one(3)], vec![one(4)]));
    let a = p.prove("rust", &[w], &fixed).unwrap();
    let b = p.prove("rust", &[w], &fixed).unwrap();
    assert_eq!(a, b, "fixed r, s give the same proof");
}

#[test]
fn async_and_cancel() {
    let (p, inputs, aux) = setup();
    let w = Witness { inputs: &inputs, aux: &aux };
    let mut job = p.submit("rust", &[w], &ProveOptions::default()).unwrap();
    assert_eq!(job.wait(None).unwrap().len(), 1);
    let many = vec![w; 8];
    let mut first = p.submit("rust", &many, &ProveOptions::default()).unwrap();
    let mut victim = p.submit("rust", &many, &ProveOptions { request_id: Some("rust-cancel".into()), ..Default::default() }).unwrap();
    victim.cancel().unwrap();
    assert_eq!(victim.wait(None).unwrap_err().code, code::CANCELLED);
    assert_eq!(first.wait(None).unwrap().len(), 8);
}

#[test]
fn errors() {
    let (p, inputs, aux) = setup();
    let short = Witness { inputs: &inputs, aux: &aux[1..] };
    let err = p.prove("rust", &[short], &ProveOptions::default()).unwrap_err();
    assert_eq!(err.code, code::INVALID_ARGUMENT);
    assert!(err.message.contains("num_aux"), "{}", err.message);
    let w = Witness { inputs: &inputs, aux: &aux };
    assert_eq!(p.prove("missing", &[w], &ProveOptions::default()).unwrap_err().code, code::NOT_FOUND);
    assert_eq!(p.load_params("x", &common::dir().join("nope.params"), false).unwrap_err().code, code::NOT_FOUND);
    assert_eq!(Prover::with_config("[memory]\nbudget = \"lots\"").unwrap_err().code, code::CONFIG);
    assert!(p.status_json().unwrap().contains("devices"));
    assert!(p.metrics_text().unwrap().contains("cuzk_"));
    assert!(!cuzk::version().is_empty());
}
