#!/usr/bin/env python3
"""Proves and verifies one proof through libcuzk from Python.

usage: example.py DIR   where DIR holds c.r1cs, c.params and the files of
`cuzk dump-assignment` (inputs.bin, aux.bin). make test builds such a DIR
under tests/python/work/.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuzk import Prover  # noqa: E402


def main(d):
    inputs = open(os.path.join(d, "inputs.bin"), "rb").read()
    aux = open(os.path.join(d, "aux.bin"), "rb").read()
    with Prover() as p:
        print("cuzk", p.version())
        p.register_circuit("example", os.path.join(d, "c.r1cs"))
        p.load_params("example", os.path.join(d, "c.params"))
        proofs, report = p.prove_with_report("example", [(inputs, aux)])
        p.verify("example", proofs, [inputs[32:]])
        stages = {s["Name"]: s["Duration"] / 1e6 for s in report[0]["stages"]}
        print(f"proof {proofs[0][:8].hex()}… verified; stages (ms): " +
              ", ".join(f"{k} {v:.1f}" for k, v in stages.items()))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "tests", "python", "work"))
