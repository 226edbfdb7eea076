"""The .wtns reader on a file written by `cuzk generate`, checked against
the witness the library itself uses (dump-assignment's inputs.bin/aux.bin,
Montgomery form, and assignment.json's decimal public inputs), proved from,
and refusing bad files with messages that say what is wrong."""
import json
import os
import struct
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))
import cuzk  # noqa: E402

WORK = os.environ.get("CUZK_FIXTURE", os.path.join(HERE, "work"))
BN254 = 21888242871839275222246405745257275088548364400416034343698204186575808495617


def read(name):
    with open(os.path.join(WORK, name), "rb") as f:
        return f.read()


def wtns_file(values, prime=cuzk.FIELD_MODULUS, n8=32, version=2, count=None, extra=b""):
    """A .wtns file built from the format's description (module doc of cuzk.wtns)."""
    hdr = struct.pack("<I", n8) + prime.to_bytes(n8, "little")
    hdr += struct.pack("<I", len(values) if count is None else count)
    body = b"".join(v.to_bytes(n8, "little") for v in values)
    out = b"wtns" + struct.pack("<II", version, 2)
    out += struct.pack("<IQ", 1, len(hdr)) + hdr
    out += struct.pack("<IQ", 2, len(body)) + body
    return out + extra


class WtnsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.meta = json.loads(read("assignment.json"))
        cls.w = cuzk.read_wtns(os.path.join(WORK, "w.wtns"))

    def test_values_match_the_librarys_witness(self):
        lib_inputs = cuzk.decode(read("inputs.bin"), montgomery=True)
        lib_aux = cuzk.decode(read("aux.bin"), montgomery=True)
        self.assertEqual(len(self.w), self.meta["num_inputs"] + self.meta["num_aux"])
        self.assertEqual(self.w.values, lib_inputs + lib_aux)
        self.assertEqual(self.w.values[1:self.meta["num_inputs"]],
                         [int(x) for x in self.meta["public_inputs"]])
        inputs, aux = self.w.split(self.meta["num_inputs"])
        self.assertEqual(cuzk.to_montgomery(cuzk.decode(inputs)), read("inputs.bin"))
        self.assertEqual(cuzk.to_montgomery(cuzk.decode(aux)), read("aux.bin"))

    def test_r1cs_num_inputs(self):
        self.assertEqual(cuzk.r1cs_num_inputs(os.path.join(WORK, "c.r1cs")),
                         self.meta["num_inputs"])
        with self.assertRaises(cuzk.WtnsError) as cm:
            cuzk.r1cs_num_inputs(os.path.join(WORK, "w.wtns"))
        self.assertIn("w.wtns: bad magic", str(cm.exception))
        self.assertIn("not a circom .r1cs file", str(cm.exception))

    def test_prove_from_the_wtns(self):
        inputs, aux = self.w.split(cuzk.r1cs_num_inputs(os.path.join(WORK, "c.r1cs")))
        with cuzk.Prover() as p:
            p.register_circuit("wtns", os.path.join(WORK, "c.r1cs"))
            p.load_params("wtns", os.path.join(WORK, "c.params"))
            proofs = p.prove("wtns", [(inputs, aux)], canonical=True)
            public = cuzk.elements(int(x) for x in self.meta["public_inputs"])
            p.verify("wtns", proofs, [public], canonical=True)
            with self.assertRaises(cuzk.InvalidProofError):
                p.verify("wtns", proofs, [cuzk.elements([1, 2])], canonical=True)

    def test_a_built_file_reads_back(self):
        w = cuzk.parse_wtns(wtns_file([1, 7, cuzk.FIELD_MODULUS - 1]), "t.wtns")
        self.assertEqual(w.values, [1, 7, cuzk.FIELD_MODULUS - 1])
        self.assertEqual(w.split(2), (cuzk.elements([1, 7]), cuzk.elements([cuzk.FIELD_MODULUS - 1])))

    def test_bad_files(self):
        good = wtns_file([1, 2, 3])
        cases = {
            "too short": (good[:8], "too short"),
            "magic": (b"r1cs" + good[4:], "bad magic"),
            "version": (wtns_file([1], version=9), "version 9"),
            "truncated section": (good[:-1], "remain"),
            "trailing": (wtns_file([1, 2], extra=b"\0"), "after the last section"),
            "bn254": (wtns_file([1, 2], prime=BN254), "not BLS12-381"),
            "n8": (wtns_file([1, 2], n8=48, prime=cuzk.FIELD_MODULUS), "48-byte"),
            "count": (wtns_file([1, 2], count=3), "want 96 for 3 values"),
            "value": (wtns_file([1, cuzk.FIELD_MODULUS]), "value 1 is not below the prime"),
            "one": (wtns_file([2, 1]), "not the constant 1"),
        }
        for name, (data, msg) in cases.items():
            with self.subTest(name), self.assertRaises(cuzk.WtnsError) as cm:
                cuzk.parse_wtns(data, "bad.wtns")
            self.assertIn("bad.wtns", str(cm.exception))
            self.assertIn(msg, str(cm.exception))

    def test_the_error_names_the_file(self):
        with tempfile.NamedTemporaryFile(suffix=".wtns") as f:
            f.write(read("c.r1cs")[:64])
            f.flush()
            with self.assertRaises(cuzk.WtnsError) as cm:
                cuzk.read_wtns(f.name)
            self.assertIn(f.name, str(cm.exception))


if __name__ == "__main__":
    unittest.main()
