"""The engine: Prover (registration, parameters, proving, verification,
status) and Job (an asynchronous proof)."""

import ctypes
import json
import os
from ctypes import POINTER, c_uint8, c_uint64

from . import library
from .elements import ELEMENT_SIZE
from .errors import TIMEOUT, CuzkError, error_for
from .library import Request as _Request, Result as _Result, Witness as _Witness

CANONICAL = 1
TRUSTED_PARAMS = 2
PRIORITY_LOW, PRIORITY_NORMAL, PRIORITY_HIGH, PRIORITY_CRITICAL = -1, 0, 1, 2
PROOF_SIZE = 192
SUPRASEAL_PROOF_SIZE = 384


def _check(err):
    """Raises the CuzkError subclass of a failed call's code (freeing its message)."""
    if err.code != 0:
        lib = library.load_library()
        msg = ctypes.string_at(err.message).decode("utf-8", "replace") if err.message else ""
        lib.cuzk_free(err.message)
        raise error_for(err.code, msg)


def _take_string(ptr):
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        library.load_library().cuzk_free(ptr)


def _buf(data):
    """A ctypes uint8 pointer to bytes (kept alive by the caller)."""
    arr = (c_uint8 * max(1, len(data))).from_buffer_copy(data if data else b"\0")
    return arr, ctypes.cast(arr, POINTER(c_uint8))


class _Closing:
    """close() on leaving a with block and when collected."""

    def close(self):
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Job(_Closing):
    """An asynchronous proof. wait() returns the proofs; close() (or leaving
    a with block) cancels it if it has not been waited for."""

    def __init__(self, lib, handle, keep):
        self._lib, self.handle, self._keep, self._done = lib, handle, keep, False

    def wait(self, timeout_ms=0):
        """The proofs and report; DeadlineError when timeout_ms passes first
        (the job keeps running and can be waited for again)."""
        res = _Result()
        err = self._lib.cuzk_await(self.handle, timeout_ms, ctypes.byref(res))
        if err.code != TIMEOUT:
            self._done = True  # every other return consumes the handle
        _check(err)
        return _proofs(self._lib, res)

    def cancel(self):
        if not self._done:
            _check(self._lib.cuzk_cancel(self.handle))

    def close(self):
        if not self._done:
            try:
                self.cancel()
                self.wait()  # consumes the handle; reports CANCELLED
            except CuzkError:
                pass
            self._done = True
        self._keep = None


def _proofs(lib, res):
    try:
        data = ctypes.string_at(res.proofs, res.proofs_len)
        report = json.loads(ctypes.string_at(res.report_json).decode()) if res.report_json else []
    finally:
        lib.cuzk_result_free(ctypes.byref(res))
    proofs = [data[i:i + PROOF_SIZE] for i in range(0, len(data), PROOF_SIZE)]
    return proofs, report


class Prover(_Closing):
    """The process-wide cuzk engine. Usable with `with`; close() cancels the
    jobs this object submitted and not yet awaited."""

    def __init__(self, config=None, lib_path=None):
        self._lib = library.load_library(lib_path)
        self._jobs = []
        if config is not None:
            _check(self._lib.cuzk_config(config.encode()))

    @staticmethod
    def version():
        return library.load_library().cuzk_version().decode()

    def configure(self, config):
        _check(self._lib.cuzk_config(config.encode() if config else None))

    def register_circuit(self, circuit_id, r1cs_path):
        _check(self._lib.cuzk_register_circuit(circuit_id.encode(), os.fsencode(r1cs_path)))

    def load_params(self, circuit_id, params_path, trusted=False):
        _check(self._lib.cuzk_load_params(circuit_id.encode(), os.fsencode(params_path),
                                          TRUSTED_PARAMS if trusted else 0))

    def evict_params(self, circuit_id):
        _check(self._lib.cuzk_evict_params(circuit_id.encode()))

    def _request(self, circuit_id, witnesses, canonical, priority, request_id, timeout_ms, r, s):
        keep = []
        ws = (_Witness * len(witnesses))()
        for i, (inputs, aux) in enumerate(witnesses):
            if len(inputs) % ELEMENT_SIZE or len(aux) % ELEMENT_SIZE:
                raise ValueError(f"witness {i}: inputs and aux must be whole 32-byte elements")
            ia, ip = _buf(inputs)
            aa, ap = _buf(aux)
            keep += [ia, aa]
            ws[i] = _Witness(ip, len(inputs) // ELEMENT_SIZE, ap, len(aux) // ELEMENT_SIZE)
        req = _Request()
        req.circuit_id = circuit_id.encode()
        req.num_partitions = len(witnesses)
        req.witnesses = ws
        req.flags = CANONICAL if canonical else 0
        req.priority = priority
        req.request_id = request_id.encode() if request_id else None
        req.timeout_ms = timeout_ms
        if (r is None) != (s is None):
            raise ValueError("give r and s together")
        if r is not None:
            ra, rp = _buf(r)
            sa, sp = _buf(s)
            keep += [ra, sa]
            req.r, req.s = rp, sp
        keep += [ws]
        return req, keep

    def prove(self, circuit_id, witnesses, canonical=False, priority=PRIORITY_NORMAL,
              request_id=None, timeout_ms=0, r=None, s=None):
        """Proves one partition per (inputs, aux) pair; returns a list of
        192-byte proofs (verified by the library unless configured off)."""
        proofs, _ = self.prove_with_report(circuit_id, witnesses, canonical, priority,
                                           request_id, timeout_ms, r, s)
        return proofs

    def prove_with_report(self, circuit_id, witnesses, canonical=False, priority=PRIORITY_NORMAL,
                          request_id=None, timeout_ms=0, r=None, s=None):
        req, keep = self._request(circuit_id, witnesses, canonical, priority, request_id, timeout_ms, r, s)
        res = _Result()
        _check(self._lib.cuzk_prove(ctypes.byref(req), ctypes.byref(res)))
        del keep
        return _proofs(self._lib, res)

    def submit(self, circuit_id, witnesses, canonical=False, priority=PRIORITY_NORMAL,
               request_id=None, timeout_ms=0, r=None, s=None):
        """Queues a request; returns a Job (the witnesses are copied)."""
        req, keep = self._request(circuit_id, witnesses, canonical, priority, request_id, timeout_ms, r, s)
        handle = c_uint64()
        _check(self._lib.cuzk_submit(ctypes.byref(req), ctypes.byref(handle)))
        job = Job(self._lib, handle.value, None)
        del keep
        self._jobs.append(job)
        return job

    def verify(self, circuit_id, proofs, public, canonical=False):
        """Verifies proofs (a list of 192-byte proofs, or their concatenation)
        against public inputs: one bytes object of 32-byte elements per proof
        (without the constant ONE). Raises InvalidProofError."""
        data = b"".join(proofs) if isinstance(proofs, (list, tuple)) else bytes(proofs)
        if len(public) * PROOF_SIZE != len(data):
            raise ValueError("one public-input vector per proof")
        npub = len(public[0]) // ELEMENT_SIZE if public else 0
        if any(len(p) != npub * ELEMENT_SIZE for p in public):
            raise ValueError("public-input vectors must have the same length")
        pa, pp = _buf(data)
        qa, qp = _buf(b"".join(public))
        _check(self._lib.cuzk_verify(circuit_id.encode(), pp, len(data), qp, npub,
                                     CANONICAL if canonical else 0))
        del pa, qa

    def proof_compress(self, proofs384):
        """Converts proofs in supraseal-c2's 384-byte in-memory layout
        (groth16_proof) to a list of 192-byte proofs."""
        data = bytes(proofs384)
        if not data or len(data) % SUPRASEAL_PROOF_SIZE:
            raise ValueError(f"{len(data)} bytes is not a positive multiple of {SUPRASEAL_PROOF_SIZE}")
        n = len(data) // SUPRASEAL_PROOF_SIZE
        src = ctypes.create_string_buffer(data, len(data))
        out = (c_uint8 * (n * PROOF_SIZE))()
        _check(self._lib.cuzk_proof_compress(src, n, out))
        raw = bytes(out)
        return [raw[i:i + PROOF_SIZE] for i in range(0, len(raw), PROOF_SIZE)]

    def status(self):
        """The library's status document as a dict (cuzk_status_json:
        snake_case keys, durations in seconds; also GET /status when
        [metrics] listen is configured)."""
        s = _take_string(self._lib.cuzk_status_json())
        return json.loads(s) if s else None

    def metrics(self):
        """The Prometheus text (cuzk_metrics_text; also GET /metrics)."""
        return _take_string(self._lib.cuzk_metrics_text())

    def set_throttle(self, raised):
        self._lib.cuzk_set_throttle(1 if raised else 0)

    def close(self):
        for job in self._jobs:
            job.close()
        self._jobs = []
