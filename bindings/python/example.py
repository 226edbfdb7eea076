#!/usr/bin/env python3
"""Proves and verifies one proof through libcuzk from Python, from circom files.

usage: example.py DIR   where DIR holds c.r1cs (circom), w.wtns (its witness)
and c.params; make test builds such a DIR under tests/python/work/ with
`cuzk generate` and `cuzk setup`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuzk  # noqa: E402


def main(d):
    r1cs = os.path.join(d, "c.r1cs")
    inputs, aux = cuzk.read_wtns(os.path.join(d, "w.wtns")).split(cuzk.r1cs_num_inputs(r1cs))
    with cuzk.Prover() as p:
        print("cuzk", p.version(), "from", cuzk.loaded_path())
        p.register_circuit("example", r1cs)
        p.load_params("example", os.path.join(d, "c.params"))
        proofs, report = p.prove_with_report("example", [(inputs, aux)], canonical=True)
        p.verify("example", proofs, [inputs[32:]], canonical=True)
        print(f"proof {proofs[0][:8].hex()}… verified; report of partition 0: "
              f"{sorted(report[0])}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "tests", "python", "work"))
