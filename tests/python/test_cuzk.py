"""unittest suite of the Python binding against a fixture made by run.sh."""
import json
import os
import socket
import sys
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))
import cuzk  # noqa: E402
from cuzk import Prover  # noqa: E402

WORK = os.environ.get("CUZK_FIXTURE", os.path.join(HERE, "work"))


def read(name):
    with open(os.path.join(WORK, name), "rb") as f:
        return f.read()


class ProverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inputs, cls.aux = read("inputs.bin"), read("aux.bin")
        cls.public = cls.inputs[32:]
        cls.p = Prover()
        cls.p.register_circuit("c", os.path.join(WORK, "c.r1cs"))
        cls.p.load_params("c", os.path.join(WORK, "c.params"))

    def test_prove_and_verify(self):
        proofs = self.p.prove("c", [(self.inputs, self.aux)] * 2)
        self.assertEqual(len(proofs), 2)
        self.assertTrue(all(len(x) == 192 for x in proofs))
        self.p.verify("c", proofs, [self.public] * 2)
        wrong = bytearray(self.public)
        wrong[0] ^= 1
        with self.assertRaises(cuzk.InvalidProofError) as cm:
            self.p.verify("c", proofs[:1], [bytes(wrong)])
        self.assertEqual(cm.exception.code, cuzk.INVALID_PROOF)

    def test_fixed_randomness_is_deterministic(self):
        r = cuzk.elements([3])
        s = cuzk.elements([4])
        a = self.p.prove("c", [(self.inputs, self.aux)], r=r, s=s)
        b = self.p.prove("c", [(self.inputs, self.aux)], r=r, s=s)
        self.assertEqual(a, b)
        c = self.p.prove("c", [(self.inputs, self.aux)])
        self.assertNotEqual(a, c)

    def test_async_submit_and_cancel(self):
        job = self.p.submit("c", [(self.inputs, self.aux)])
        proofs, report = job.wait()
        self.assertEqual(len(proofs), 1)
        self.assertTrue(report[0]["verified"])
        with self.p.submit("c", [(self.inputs, self.aux)] * 8) as long_job, \
                self.p.submit("c", [(self.inputs, self.aux)] * 8, request_id="py-cancel") as victim:
            victim.cancel()
            with self.assertRaises(cuzk.CancelledError) as cm:
                victim.wait()
            self.assertEqual(cm.exception.code, cuzk.CANCELLED)
            self.assertEqual(len(long_job.wait()[0]), 8)

    def test_errors_carry_the_message(self):
        with self.assertRaises(cuzk.ConfigError) as cm:
            Prover(config="[gpus]\nworkers_per_device = 0\n")
        self.assertEqual(cm.exception.code, cuzk.CONFIG)
        self.assertIn("gpus.workers_per_device", cm.exception.message)
        with self.assertRaises(cuzk.NotFoundError) as cm:
            self.p.load_params("x", os.path.join(WORK, "missing.params"))
        self.assertEqual(cm.exception.code, cuzk.NOT_FOUND)
        self.assertIn("missing.params", str(cm.exception))
        with self.assertRaises(cuzk.InvalidArgumentError) as cm:
            self.p.prove("c", [(self.inputs, self.aux[:-32])])
        self.assertEqual(cm.exception.code, cuzk.INVALID_ARGUMENT)
        self.assertIn("num_aux", cm.exception.message)
        with self.assertRaises(cuzk.NotFoundError) as cm:
            self.p.prove("nope", [(self.inputs, self.aux)])
        self.assertEqual(cm.exception.code, cuzk.NOT_FOUND)
        bad = bytearray(self.aux)
        bad[-32:] = (5).to_bytes(32, "little")
        with self.assertRaises(cuzk.UnsatisfiedError) as cm:
            self.p.prove("c", [(self.inputs, bytes(bad))])
        self.assertEqual(cm.exception.code, cuzk.UNSATISFIED)
        with self.assertRaises(cuzk.BadFileError) as cm:
            self.p.load_params("x", os.path.join(WORK, "c.r1cs"))
        self.assertEqual(cm.exception.code, cuzk.BAD_FILE)
        # the message says what the file is and what the call takes
        self.assertIn("c.r1cs is a circom circuit (.r1cs)", cm.exception.message)
        self.assertIn("takes a parameter file (bellperson .params)", cm.exception.message)
        with self.p.submit("c", [(self.inputs, self.aux)] * 8) as job:
            with self.assertRaises(cuzk.DeadlineError) as cm:
                job.wait(timeout_ms=1)
            self.assertEqual(cm.exception.code, cuzk.TIMEOUT)
            self.assertEqual(len(job.wait()[0]), 8)  # still running after the timeout
        with self.p.submit("c", [(self.inputs, self.aux)] * 4, request_id="py-dup") as first:
            with self.assertRaises(cuzk.BusyError) as cm:
                self.p.submit("c", [(self.inputs, self.aux)], request_id="py-dup")
            self.assertEqual(cm.exception.code, cuzk.BUSY)
            first.wait()
        # The process is still healthy: proving works after the errors.
        self.assertEqual(len(self.p.prove("c", [(self.inputs, self.aux)])), 1)

    def test_canonical_elements(self):
        with self.assertRaises(ValueError):
            cuzk.elements([cuzk.FIELD_MODULUS])
        self.assertEqual(cuzk.elements([1]), (1).to_bytes(32, "little"))

    def test_status_metrics_throttle(self):
        st = self.p.status()
        self.assertIn("devices", st)
        self.assertIn("cuzk_jobs_completed_total", self.p.metrics())
        self.p.set_throttle(True)
        self.assertTrue(self.p.status()["throttle"]["raised"])
        self.p.set_throttle(False)
        self.assertFalse(self.p.status()["throttle"]["raised"])
        self.assertTrue(Prover.version())

    def test_http_listener(self):
        """metrics.listen: the library serves /status and /metrics itself."""
        self.p.configure('[metrics]\nlisten = "127.0.0.1:0"\n')
        try:
            addr = self.p.status()["metrics_listen"]
            with urllib.request.urlopen(f"http://{addr}/status", timeout=30) as r:
                self.assertEqual(r.headers["Content-Type"], "application/json")
                st = json.load(r)
            self.assertEqual(st["version"], Prover.version())
            self.assertIn("c", [c["id"] for c in st["circuits"]])
            self.assertIn("c", [p["circuit"] for p in st["parameter_sets"]])
            self.assertIn("uptime_seconds", st)
            self.assertTrue(all(d["healthy"] for d in st["devices"]))
            self.assertEqual(set(st["capacity"]["queue"]), {"low", "normal", "high", "critical"})
            with urllib.request.urlopen(f"http://{addr}/metrics", timeout=30) as r:
                text = r.read().decode()
            self.assertIn(f'version="{Prover.version()}"}} 1', text)
            self.assertIn("process_resident_memory_bytes", text)
            # An address in use is a configuration error; the listener stays.
            with socket.socket() as taken:
                taken.bind(("127.0.0.1", 0))
                taken.listen()
                host, port = taken.getsockname()
                with self.assertRaises(cuzk.ConfigError) as cm:
                    self.p.configure(f'[metrics]\nlisten = "{host}:{port}"\n')
                self.assertIn("metrics.listen", str(cm.exception))
            self.assertEqual(self.p.status()["metrics_listen"], addr)
        finally:
            self.p.configure(None)
        self.assertEqual(self.p.status()["metrics_listen"], "")
        with self.assertRaises(urllib.error.URLError):
            urllib.request.urlopen(f"http://{addr}/status", timeout=30)


if __name__ == "__main__":
    unittest.main()
