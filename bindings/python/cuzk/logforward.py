"""Opt-in: the library's log lines, read from stderr, as Python log records.

libcuzk writes its log with Go's slog text handler to file descriptor 2
(`time=... level=WARN msg="..." key=value ...`); it offers no log callback.
forward_library_log() puts a pipe on descriptor 2 and reads it on a thread:
each slog line becomes a record of the logger "cuzk.lib" at its level (the
key=value attributes follow the message, and are in record.cuzk_attrs);
every other line (Python's own stderr, tracebacks) is written unchanged to
the original stderr.

Why a second thread emits the records: a handler that writes to stderr
writes into the same pipe; the reader only queues records, so it keeps
draining the pipe and a full pipe cannot block it. At exit the original
stderr is put back and what is left in the pipe is forwarded.

This redirects the whole process's descriptor 2, hence opt-in; without it
the lines stay on stderr and CUZK_LOG_LEVEL (cuzk.library) sets how many.
"""

import atexit
import json
import logging
import os
import queue
import re
import threading

_LEVELS = {"DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
           "ERROR": logging.ERROR}
_LINE = re.compile(r'^time=\S+ level=([A-Z]+)([+-]\d+)? msg=("(?:[^"\\]|\\.)*"|\S*) ?(.*)$')

_lock = threading.Lock()
_state = None


def parse_line(line):
    """(level, message, attributes) of one slog text line, or None."""
    m = _LINE.match(line)
    if not m or m.group(1) not in _LEVELS:
        return None
    msg = m.group(3)
    if msg.startswith('"'):
        try:
            msg = json.loads(msg)
        except ValueError:
            msg = msg[1:-1]
    return _LEVELS[m.group(1)] + int(m.group(2) or 0), msg, m.group(4)


def _read(rfd, out_fd, records):
    with os.fdopen(rfd, "rb", buffering=0) as r:
        pending = b""
        while True:
            chunk = r.read(65536)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                parsed = parse_line(raw.decode("utf-8", "replace"))
                if parsed:
                    records.put(parsed)
                else:
                    os.write(out_fd, raw + b"\n")
        if pending:
            os.write(out_fd, pending)
    records.put(None)


def _emit(logger, records):
    while True:
        item = records.get()
        if item is None:
            return
        level, msg, attrs = item
        if attrs:
            logger.log(level, "%s %s", msg, attrs, extra={"cuzk_attrs": attrs})
        else:
            logger.log(level, "%s", msg, extra={"cuzk_attrs": ""})


def forward_library_log(logger_name="cuzk.lib"):
    """Starts forwarding (once per process; later calls return the logger).
    Call it before the first Prover so that the first lines are caught."""
    global _state
    with _lock:
        logger = logging.getLogger(logger_name)
        if _state is not None:
            return _state["logger"]
        saved = os.dup(2)
        rfd, wfd = os.pipe()
        os.dup2(wfd, 2)
        os.close(wfd)
        records = queue.SimpleQueue()
        reader = threading.Thread(target=_read, args=(rfd, saved, records),
                                  name="cuzk-log-reader", daemon=True)
        emitter = threading.Thread(target=_emit, args=(logger, records),
                                   name="cuzk-log-emitter", daemon=True)
        reader.start()
        emitter.start()
        _state = {"logger": logger, "saved": saved, "reader": reader, "emitter": emitter}
        atexit.register(_stop)
        return logger


def _stop():
    """Puts the original stderr back; the pipe's last writer closes, so the
    reader drains it and ends."""
    global _state
    with _lock:
        st, _state = _state, None
    if st is None:
        return
    os.dup2(st["saved"], 2)
    st["reader"].join(2)
    st["emitter"].join(2)
