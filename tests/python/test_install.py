"""`pip install` of bindings/python, offline: into a directory and into a
fresh virtual environment, then import, prove and verify from the installed
copy in a fresh process started in another directory, with no CUZK_LIB; and
an install that finds libcuzk.so (and libcuzk_cuda.so beside it) under the
prefix of `make install`."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
WORK = os.environ.get("CUZK_FIXTURE", os.path.join(HERE, "work"))
PACKAGE = os.path.join(ROOT, "bindings", "python")
BUILT = os.path.join(ROOT, "build", "libcuzk.so")

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

PIP_ENV = dict(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_ROOT_USER_ACTION="ignore")


def clean_env(**extra):
    """The environment with none of the variables that would find the
    library or the package for it."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "CUZK_LIB", "CUZK_CUDA_LIB", "LD_LIBRARY_PATH", "VIRTUAL_ENV")}
    env.update(extra)
    return env


class InstallTest(unittest.TestCase):
    def prove_from(self, python, where, env, cwd):
        """Runs PROVE with python in cwd; returns (library path, stderr)."""
        p = subprocess.run([python, "-c", PROVE, where, os.path.abspath(WORK)],
                           env=env, capture_output=True, text=True, cwd=cwd, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        words = p.stdout.split()
        self.assertEqual(words[:2], ["verified", "1"], p.stdout)
        return words[2], p.stderr

    def test_pip_install_target_bundles_the_library(self):
        with tempfile.TemporaryDirectory() as target:
            subprocess.run([sys.executable, "-m", "pip", "install", "--no-cache-dir", "--quiet",
                            "--target", target, PACKAGE],
                           env=clean_env(**PIP_ENV), check=True, cwd=target)
            src = os.path.join(PACKAGE, "cuzk")
            modules = sorted(f for f in os.listdir(src) if f.endswith(".py"))
            self.assertEqual(sorted(f for f in os.listdir(os.path.join(target, "cuzk"))
                                    if f.endswith(".py")), sorted(modules + ["_install.py"]))
            self.assertTrue(any(n.startswith("cuzk-") and n.endswith(".dist-info")
                                for n in os.listdir(target)))
            bundled = os.path.join(target, "cuzk", "libcuzk.so")
            with open(bundled, "rb") as a, open(BUILT, "rb") as b:
                self.assertEqual(a.read(), b.read(), "the built library, bundled")
            # Run outside the checkout so only the installed copy can be
            # imported, with no CUZK_LIB: the bundled library is found.
            with tempfile.TemporaryDirectory() as elsewhere:
                lib, _ = self.prove_from(sys.executable, target, clean_env(PYTHONPATH=target), elsewhere)
            self.assertEqual(lib, bundled)

    def test_fresh_venv(self):
        with tempfile.TemporaryDirectory() as tmp:
            venv = os.path.join(tmp, "venv")
            # ensurepip installs the pip bundled with Python: no index.
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, env=clean_env(), cwd=tmp)
            python = os.path.join(venv, "bin", "python")
            subprocess.run([python, "-m", "pip", "install", "--no-cache-dir", "--quiet", PACKAGE],
                           env=clean_env(**PIP_ENV), check=True, cwd=tmp)
            site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True, env=clean_env(), cwd=tmp).stdout.strip()
            self.assertTrue(site.startswith(venv), site)
            elsewhere = os.path.join(tmp, "elsewhere")
            os.mkdir(elsewhere)
            lib, _ = self.prove_from(python, site, clean_env(), elsewhere)
            self.assertEqual(lib, os.path.join(site, "cuzk", "libcuzk.so"))

    @unittest.skipUnless(shutil.which("make") and shutil.which("go"), "needs make and go")
    def test_install_prefix(self):
        """make install PREFIX=... (libcuzk_cuda.so too when built), then a
        package installed with nothing bundled and that prefix recorded
        loads PREFIX/lib/libcuzk.so, and the library looks for
        libcuzk_cuda.so beside itself there."""
        with tempfile.TemporaryDirectory() as tmp:
            build, prefix, target = (os.path.join(tmp, d) for d in ("build", "prefix", "target"))
            os.mkdir(build)
            # Not a library: dlopen refuses it, and the CPU proves.
            with open(os.path.join(build, "libcuzk_cuda.so"), "w") as f:
                f.write("not a library\n")
            subprocess.run(["make", "-s", "install", f"BUILD={build}", f"PREFIX={prefix}"],
                           cwd=ROOT, check=True, capture_output=True, timeout=600)
            for name in ("lib/libcuzk.so", "lib/libcuzk_cuda.so", "include/cuzk.h", "lib/pkgconfig/cuzk.pc"):
                self.assertTrue(os.path.isfile(os.path.join(prefix, name)), name)
            subprocess.run([sys.executable, "-m", "pip", "install", "--no-cache-dir", "--quiet",
                            "--target", target, "--config-settings", "lib=none",
                            "--config-settings", f"prefix={prefix}", PACKAGE],
                           env=clean_env(**PIP_ENV), check=True, cwd=tmp)
            self.assertFalse(os.path.exists(os.path.join(target, "cuzk", "libcuzk.so")))
            lib, stderr = self.prove_from(sys.executable, target, clean_env(PYTHONPATH=target), tmp)
            self.assertEqual(lib, os.path.join(prefix, "lib", "libcuzk.so"))
            self.assertIn(os.path.join(prefix, "lib", "libcuzk_cuda.so"), stderr,
                          "the CUDA library beside the installed libcuzk.so was tried")
            self.assertIn("gpus.cuda_lib", stderr)

    def test_not_found_lists_what_it_tried(self):
        """With nothing bundled and nothing under the prefix, the error
        lists every place and says to set CUZK_LIB."""
        with tempfile.TemporaryDirectory() as target:
            subprocess.run([sys.executable, "-m", "pip", "install", "--no-cache-dir", "--quiet",
                            "--target", target, "--config-settings", "lib=none",
                            "--config-settings", f"prefix={target}/none", PACKAGE],
                           env=clean_env(**PIP_ENV), check=True, cwd=target)
            p = subprocess.run([sys.executable, "-c", "import cuzk; cuzk.load_library()"],
                               env=clean_env(PYTHONPATH=target), capture_output=True, text=True, cwd=target)
            if p.returncode != 0:  # unless the system loader has one
                self.assertIn(os.path.join(target, "cuzk", "libcuzk.so"), p.stderr)
                self.assertIn(os.path.join(target, "none", "lib", "libcuzk.so"), p.stderr)
                self.assertIn("set CUZK_LIB", p.stderr)


if __name__ == "__main__":
    unittest.main()
