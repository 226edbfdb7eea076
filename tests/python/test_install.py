"""`pip install` of bindings/python into a temporary directory, offline,
then import, prove and verify from the installed copy in a fresh process."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
WORK = os.environ.get("CUZK_FIXTURE", os.path.join(HERE, "work"))

PROVE = r"""
import os, sys, cuzk
assert cuzk.__file__.startswith(sys.argv[1]), cuzk.__file__
d = sys.argv[2]
with cuzk.Prover() as p:
    p.register_circuit("c", os.path.join(d, "c.r1cs"))
    p.load_params("c", os.path.join(d, "c.params"))
    inputs = open(os.path.join(d, "inputs.bin"), "rb").read()
    aux = open(os.path.join(d, "aux.bin"), "rb").read()
    proofs = p.prove("c", [(inputs, aux)])
    p.verify("c", proofs, [inputs[32:]])
print("verified", len(proofs), cuzk.loaded_path())
"""


class InstallTest(unittest.TestCase):
    def test_pip_install_offline_then_prove(self):
        with tempfile.TemporaryDirectory() as target:
            env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                       PIP_ROOT_USER_ACTION="ignore")
            subprocess.run([sys.executable, "-m", "pip", "install", "--no-cache-dir", "--quiet",
                            "--target", target, os.path.join(ROOT, "bindings", "python")],
                           env=env, check=True, cwd=target)
            src = os.path.join(ROOT, "bindings", "python", "cuzk")
            modules = sorted(f for f in os.listdir(src) if f.endswith(".py"))
            self.assertEqual(sorted(f for f in os.listdir(os.path.join(target, "cuzk"))
                                    if f.endswith(".py")), modules)
            self.assertTrue(any(n.startswith("cuzk-") and n.endswith(".dist-info")
                                for n in os.listdir(target)))
            lib = os.path.join(ROOT, "build", "libcuzk.so")
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            env.update(PYTHONPATH=target, CUZK_LIB=lib)
            # Run outside the checkout so only the installed copy can be imported.
            p = subprocess.run([sys.executable, "-c", PROVE, target, os.path.abspath(WORK)],
                               env=env, capture_output=True, text=True, cwd=target, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.split(), ["verified", "1", lib])
            # Installed outside a checkout, with no CUZK_LIB: the lookup
            # ends at the system loader, and the error lists what it tried.
            del env["CUZK_LIB"]
            p = subprocess.run([sys.executable, "-c", "import cuzk; cuzk.load_library()"],
                               env=env, capture_output=True, text=True, cwd=target)
            if p.returncode != 0:
                self.assertIn(os.path.join(target, "cuzk", "libcuzk.so"), p.stderr)
                self.assertIn("set CUZK_LIB", p.stderr)


if __name__ == "__main__":
    unittest.main()
