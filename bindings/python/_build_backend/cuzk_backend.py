"""The PEP 517 / PEP 660 build backend of the cuzk Python package.

Why in-tree: a pure-Python package needs no more than a zip with its
metadata, and a backend that pip can run with `requires = []` lets
`pip install ./bindings/python` work on a host with no package index
(pip's build isolation would otherwise fetch setuptools). Only the standard
library is used.

Name and version come from pyproject.toml's [project] table; the wheel holds
every .py file of cuzk/, and cuzk/_install.py with the install prefix that
`make install` used (config setting "prefix", default /usr/local), where
cuzk/library.py looks for PREFIX/lib/libcuzk.so.

The built library is bundled into the package, so that an installed copy
finds it with no variable set: libcuzk.so from the config setting "lib" (a
path; "none" bundles nothing), else CUZK_LIB, else build/libcuzk.so of the
checkout this backend runs from; libcuzk_cuda.so is bundled too when it is
beside it (libcuzk.so finds it beside itself). A wheel with a library is
tagged for this platform (py3-none-linux_x86_64), one without py3-none-any.
"""

import base64
import hashlib
import io
import os
import re
import sysconfig
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "cuzk"
PURE_TAG = "py3-none-any"
LIBRARY = "libcuzk.so"
CUDA_LIBRARY = "libcuzk_cuda.so"


def _project():
    """name, version, description and requires-python of [project]."""
    text = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]
    out = {}
    for key in ("name", "version", "description", "requires-python"):
        m = re.search(r'^%s\s*=\s*"([^"]*)"' % re.escape(key), table, re.M)
        if not m:
            raise ValueError(f"pyproject.toml: [project] has no {key}")
        out[key] = m.group(1)
    return out


def _metadata(p):
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}",
             f"Summary: {p['description']}", f"Requires-Python: {p['requires-python']}"]
    readme = os.path.join(ROOT, "README.md")
    body = ""
    if os.path.isfile(readme):
        lines.append("Description-Content-Type: text/markdown")
        body = "\n" + open(readme, encoding="utf-8").read()
    return ("\n".join(lines) + "\n" + body).encode()


def _sources():
    """(archive name, path) of each module of the package, sorted."""
    pkg = os.path.join(ROOT, PACKAGE)
    return [(f"{PACKAGE}/{f}", os.path.join(pkg, f))
            for f in sorted(os.listdir(pkg)) if f.endswith(".py")]


def _digest(data):
    d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={d}"


def _setting(config_settings, key):
    v = (config_settings or {}).get(key)
    if isinstance(v, list):  # given more than once: the last one
        v = v[-1] if v else None
    return v


def _bundled(config_settings):
    """(archive name, path) of the libraries to bundle, possibly none."""
    lib = _setting(config_settings, "lib")
    if lib == "none":
        return []
    if not lib:
        lib = os.environ.get("CUZK_LIB")
    if lib:
        if not os.path.isfile(lib):
            raise FileNotFoundError(f"cuzk_backend: library {lib}: no such file")
    else:
        lib = os.path.normpath(os.path.join(ROOT, "..", "..", "build", LIBRARY))
        if not os.path.isfile(lib):
            return []
    out = [(f"{PACKAGE}/{LIBRARY}", lib)]
    cuda = os.path.join(os.path.dirname(os.path.abspath(lib)), CUDA_LIBRARY)
    if os.path.isfile(cuda):
        out.append((f"{PACKAGE}/{CUDA_LIBRARY}", cuda))
    return out


def _install_module(config_settings):
    prefix = _setting(config_settings, "prefix") or "/usr/local"
    return (f"{PACKAGE}/_install.py",
            ('"""Written by the build backend at install: do not edit."""\n'
             f"PREFIX = {prefix!r}\n").encode())


def _platform_tag():
    return "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _write_wheel(directory, files, tag=PURE_TAG):
    """Writes a wheel of files ([(archive name, bytes)]) with its dist-info."""
    p = _project()
    dist = f"{p['name']}-{p['version']}"
    info = f"{dist}.dist-info"
    files = list(files) + [
        (f"{info}/METADATA", _metadata(p)),
        (f"{info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: cuzk_backend\n"
                           f"Root-Is-Purelib: {'true' if tag == PURE_TAG else 'false'}\n"
                           f"Tag: {tag}\n").encode()),
    ]
    record = "".join(f"{name},{_digest(data)},{len(data)}\n" for name, data in files)
    record += f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    name = f"{dist}-{tag}.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            zi = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if arc.endswith(".so") else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = [(arc, open(path, "rb").read()) for arc, path in _sources()]
    files.append(_install_module(config_settings))
    libs = _bundled(config_settings)
    files += [(arc, open(path, "rb").read()) for arc, path in libs]
    return _write_wheel(wheel_directory, files, _platform_tag() if libs else PURE_TAG)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """An editable install: a .pth file pointing at this source tree, so
    the package is imported from the checkout (and finds build/libcuzk.so)."""
    return _write_wheel(wheel_directory, [(f"{PACKAGE}.pth", (ROOT + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    dist = f"{p['name']}-{p['version']}"
    names = ["pyproject.toml", "README.md", "_build_backend/cuzk_backend.py"]
    names += [arc for arc, _ in _sources()]
    out = f"{dist}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, out), "w:gz", format=tarfile.PAX_FORMAT) as t:
        def add(arc, data):
            ti = tarfile.TarInfo(f"{dist}/{arc}")
            ti.size, ti.mode, ti.mtime = len(data), 0o644, int(time.time())
            t.addfile(ti, io.BytesIO(data))
        for arc in names:
            path = os.path.join(ROOT, arc)
            if os.path.isfile(path):
                add(arc, open(path, "rb").read())
        add("PKG-INFO", _metadata(p))
    return out
