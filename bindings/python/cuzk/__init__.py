"""Python binding of libcuzk (ctypes, standard library only).

    from cuzk import Prover
    with Prover() as p:
        p.register_circuit("c", "c.r1cs")
        p.load_params("c", "c.params")
        proofs = p.prove("c", [(inputs, aux)])   # 32-byte elements, Montgomery form
        p.verify("c", proofs, [public])

Errors raise CuzkError, carrying the library's code and message. The
library is found through CUZK_LIB (a path to libcuzk.so), beside this
package, in the repository's build/ directory, or by the system loader.
"""

import ctypes
import json
import os
from ctypes import (POINTER, Structure, c_char_p, c_int, c_int32, c_size_t,
                    c_uint8, c_uint32, c_uint64, c_void_p)

__all__ = ["Prover", "Job", "CuzkError", "load_library", "elements",
           "CANONICAL", "TRUSTED_PARAMS", "PRIORITY_LOW", "PRIORITY_NORMAL",
           "PRIORITY_HIGH", "PRIORITY_CRITICAL", "PROOF_SIZE"]

# Status codes (include/cuzk.h).
OK, INVALID_ARGUMENT, NOT_FOUND, BAD_FILE, UNSATISFIED, INVALID_PROOF, \
    CANCELLED, TIMEOUT, BUSY, CONFIG, NOT_VERIFIED, INTERNAL = range(12)
CODE_NAMES = {OK: "ok", INVALID_ARGUMENT: "invalid argument", NOT_FOUND: "not found",
              BAD_FILE: "bad file", UNSATISFIED: "unsatisfied", INVALID_PROOF: "invalid proof",
              CANCELLED: "cancelled", TIMEOUT: "timeout", BUSY: "busy", CONFIG: "bad config",
              NOT_VERIFIED: "not verified", INTERNAL: "internal"}

CANONICAL = 1
TRUSTED_PARAMS = 2
PRIORITY_LOW, PRIORITY_NORMAL, PRIORITY_HIGH, PRIORITY_CRITICAL = -1, 0, 1, 2
PROOF_SIZE = 192
ELEMENT_SIZE = 32
FIELD_MODULUS = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001


class CuzkError(Exception):
    """An error returned by libcuzk: .code (cuzk_code) and the library's message."""

    def __init__(self, code, message):
        super().__init__(f"{message} [{CODE_NAMES.get(code, code)}]")
        self.code = code
        self.message = message


class _Error(Structure):
    _fields_ = [("code", c_int32), ("message", c_void_p)]


class _Witness(Structure):
    _fields_ = [("inputs", POINTER(c_uint8)), ("num_inputs", c_size_t),
                ("aux", POINTER(c_uint8)), ("num_aux", c_size_t)]


_WITNESS_FN = ctypes.CFUNCTYPE(c_int32, c_void_p, c_size_t, POINTER(c_uint8), c_size_t,
                               POINTER(c_uint8), c_size_t)


class _Request(Structure):
    _fields_ = [("circuit_id", c_char_p), ("num_partitions", c_size_t),
                ("witnesses", POINTER(_Witness)), ("witness_fn", _WITNESS_FN),
                ("witness_user_data", c_void_p), ("flags", c_uint32), ("priority", c_int32),
                ("request_id", c_char_p), ("timeout_ms", c_uint64),
                ("r", POINTER(c_uint8)), ("s", POINTER(c_uint8))]


class _Result(Structure):
    _fields_ = [("proofs", POINTER(c_uint8)), ("proofs_len", c_size_t), ("report_json", c_void_p)]


_lib = None


def load_library(path=None):
    """Loads libcuzk (once) and declares every function's types."""
    global _lib
    if _lib is not None:
        return _lib
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [path, os.environ.get("CUZK_LIB"), os.path.join(here, "libcuzk.so"),
                  os.path.join(here, "..", "..", "..", "build", "libcuzk.so"), "libcuzk.so"]
    errors = []
    for cand in candidates:
        if not cand:
            continue
        try:
            lib = ctypes.CDLL(cand)
            break
        except OSError as e:
            errors.append(f"{cand}: {e}")
    else:
        raise OSError("libcuzk.so not found (set CUZK_LIB): " + "; ".join(errors))
    sigs = {
        "cuzk_version": ([], c_char_p),
        "cuzk_free": ([c_void_p], None),
        "cuzk_config": ([c_char_p], _Error),
        "cuzk_register_circuit": ([c_char_p, c_char_p], _Error),
        "cuzk_load_params": ([c_char_p, c_char_p, c_uint32], _Error),
        "cuzk_evict_params": ([c_char_p], _Error),
        "cuzk_prove": ([POINTER(_Request), POINTER(_Result)], _Error),
        "cuzk_submit": ([POINTER(_Request), POINTER(c_uint64)], _Error),
        "cuzk_await": ([c_uint64, c_uint64, POINTER(_Result)], _Error),
        "cuzk_cancel": ([c_uint64], _Error),
        "cuzk_result_free": ([POINTER(_Result)], None),
        "cuzk_verify": ([c_char_p, POINTER(c_uint8), c_size_t, POINTER(c_uint8), c_size_t, c_uint32], _Error),
        "cuzk_status_json": ([], c_void_p),
        "cuzk_metrics_text": ([], c_void_p),
        "cuzk_set_throttle": ([c_int], None),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = res
    _lib = lib
    return lib


def _check(err):
    if err.code != OK:
        msg = ctypes.string_at(err.message).decode("utf-8", "replace") if err.message else ""
        _lib.cuzk_free(err.message)
        raise CuzkError(err.code, msg)


def _take_string(ptr):
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        _lib.cuzk_free(ptr)


def _buf(data):
    """A ctypes uint8 pointer to bytes (kept alive by the caller)."""
    arr = (c_uint8 * max(1, len(data))).from_buffer_copy(data if data else b"\0")
    return arr, ctypes.cast(arr, POINTER(c_uint8))


def elements(values):
    """Encodes Python ints as canonical 32-byte little-endian elements (use
    with canonical=True)."""
    out = bytearray()
    for v in values:
        if not 0 <= v < FIELD_MODULUS:
            raise ValueError(f"{v} is not a field element")
        out += v.to_bytes(ELEMENT_SIZE, "little")
    return bytes(out)


class Job:
    """An asynchronous proof. wait() returns the proofs; close() (or leaving
    a with block) cancels it if it has not been waited for."""

    def __init__(self, lib, handle, keep):
        self._lib, self.handle, self._keep, self._done = lib, handle, keep, False

    def wait(self, timeout_ms=0):
        res = _Result()
        _check(self._lib.cuzk_await(self.handle, timeout_ms, ctypes.byref(res)))
        self._done = True
        return _proofs(self._lib, res)

    def cancel(self):
        if not self._done:
            _check(self._lib.cuzk_cancel(self.handle))

    def close(self):
        if not self._done:
            try:
                self.cancel()
                self._lib.cuzk_await(self.handle, 0, ctypes.byref(_Result()))
            except CuzkError:
                pass
            self._done = True
        self._keep = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _proofs(lib, res):
    try:
        data = ctypes.string_at(res.proofs, res.proofs_len)
        report = json.loads(ctypes.string_at(res.report_json).decode()) if res.report_json else []
    finally:
        lib.cuzk_result_free(ctypes.byref(res))
    proofs = [data[i:i + PROOF_SIZE] for i in range(0, len(data), PROOF_SIZE)]
    return proofs, report


class Prover:
    """The process-wide cuzk engine. Usable with `with`; close() cancels the
    jobs this object submitted and not yet awaited."""

    def __init__(self, config=None, lib_path=None):
        self._lib = load_library(lib_path)
        self._jobs = []
        if config is not None:
            _check(self._lib.cuzk_config(config.encode()))

    @staticmethod
    def version():
        return load_library().cuzk_version().decode()

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
        (without the constant ONE). Raises CuzkError(INVALID_PROOF)."""
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

    def status(self):
        s = _take_string(self._lib.cuzk_status_json())
        return json.loads(s) if s else None

    def metrics(self):
        return _take_string(self._lib.cuzk_metrics_text())

    def set_throttle(self, raised):
        self._lib.cuzk_set_throttle(1 if raised else 0)

    def close(self):
        for job in self._jobs:
            job.close()
        self._jobs = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
