"""The binding against the C headers: every export declared, one exception
class per status code, and the library lookup refusing a wrong CUZK_LIB.
The lookup runs in child processes: the library loads once per process."""
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SRC = os.path.join(ROOT, "bindings", "python")
sys.path.insert(0, SRC)
import cuzk  # noqa: E402
from cuzk import library  # noqa: E402

HEADERS = [os.path.join(ROOT, "include", h) for h in ("cuzk.h", "supraseal_c2.h")]


def header_text(path):
    with open(path) as f:
        return re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)


def header_functions(path):
    """The names of the functions a header declares (its prototypes block)."""
    text = header_text(path)
    block = text.split("#ifndef CUZK_NO_PROTOTYPES", 1)[1].split("#endif", 1)[0]
    names = []
    for stmt in block.split(";"):
        m = re.search(r"(\w+)\s*\(", stmt)
        if m:
            names.append(m.group(1))
    return names


def header_codes():
    """CUZK_ERR_* name -> value from cuzk.h's enum."""
    return {name: int(v) for name, v in
            re.findall(r"(CUZK_ERR_\w+)\s*=\s*(\d+)", header_text(HEADERS[0]))}


def run_child(code, path=SRC, **env):
    """Runs Python code importing the package from path; returns (rc, stdout, stderr)."""
    e = {k: v for k, v in os.environ.items() if k not in ("CUZK_LIB", "CUZK_LOG_LEVEL")}
    e.update(env)
    e["PYTHONPATH"] = path
    p = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


class DeclarationsTest(unittest.TestCase):
    def test_every_header_function_is_declared(self):
        named = [n for h in HEADERS for n in header_functions(h)]
        self.assertGreaterEqual(len(named), 27)  # 17 in cuzk.h, 10 in supraseal_c2.h
        self.assertEqual(sorted(named), sorted(library.SIGNATURES))
        lib = cuzk.load_library()
        for name in named:
            fn = getattr(lib, name)
            args, res = library.SIGNATURES[name]
            self.assertEqual(fn.argtypes, args, name)
            self.assertIs(fn.restype, res, name)

    def test_struct_layouts_match_the_c_compiler(self):
        # Every field's offset and every struct's size, as a C compiler lays
        # out the headers' types, against the ctypes mirrors.
        structs = {"cuzk_error": library.Error, "cuzk_witness": library.Witness,
                   "cuzk_request": library.Request, "cuzk_result": library.Result,
                   "cuzk_matrix": library.Matrix, "cuzk_matrices": library.Matrices,
                   "RustError": library.RustError, "fr_t": library.Fr, "fp_t": library.Fp,
                   "g1_affine_t": library.G1Affine, "g2_affine_t": library.G2Affine,
                   "groth16_proof": library.Groth16Proof, "SRS": library.SRS,
                   "Assignment": library.Assignment}
        lines, want = [], []
        for cname, cls in structs.items():
            lines.append(f'printf("%zu\\n", sizeof({cname}));')
            want.append(ctypes.sizeof(cls))
            for field in cls._fields_:
                lines.append(f'printf("%zu\\n", offsetof({cname}, {field[0]}));')
                want.append(getattr(cls, field[0]).offset)
        prog = ("#include <stddef.h>\n#include <stdio.h>\n#include \"cuzk.h\"\n"
                "#include \"supraseal_c2.h\"\nint main(void) {\n" + "\n".join(lines)
                + "\nreturn 0;\n}\n")
        with tempfile.TemporaryDirectory() as d:
            src, exe = os.path.join(d, "layout.c"), os.path.join(d, "layout")
            with open(src, "w") as f:
                f.write(prog)
            cc = os.environ.get("CC", "cc")
            subprocess.run([cc, "-std=c11", "-I", os.path.join(ROOT, "include"), src, "-o", exe],
                           check=True)
            got = [int(x) for x in subprocess.run([exe], capture_output=True, text=True,
                                                  check=True).stdout.split()]
        self.assertEqual(got, want)


class ErrorsTest(unittest.TestCase):
    def test_one_class_per_status_code(self):
        codes = header_codes()
        self.assertEqual(len(codes), 12)
        self.assertEqual(sorted(cuzk.ERRORS), sorted(codes.values()))
        self.assertEqual(len(set(cuzk.ERRORS.values())), len(codes))
        for name, code in codes.items():
            cls = cuzk.ERRORS[code]
            self.assertTrue(issubclass(cls, cuzk.CuzkError), name)
            self.assertEqual(cls.code, code, name)
            self.assertEqual(getattr(cuzk, name[len("CUZK_ERR_"):]), code, name)
            err = cuzk.error_for(code, "the message")
            self.assertIs(type(err), cls, name)
            self.assertEqual((err.code, err.message), (code, "the message"))
            self.assertIn("the message", str(err))

    def test_unknown_code_is_the_base_class(self):
        err = cuzk.error_for(99, "new")
        self.assertIs(type(err), cuzk.CuzkError)
        self.assertEqual(err.code, 99)
        self.assertIn("code 99", str(err))


class LookupTest(unittest.TestCase):
    def test_missing_cuzk_lib_is_an_error_naming_it(self):
        path = "/nonexistent/dir/libcuzk.so"
        rc, out, err = run_child("import cuzk; cuzk.Prover()", CUZK_LIB=path)
        self.assertNotEqual(rc, 0)
        self.assertIn("LibraryError", err)
        self.assertIn(path, err)
        self.assertIn("no such file", err)

    def test_a_file_that_is_not_the_library(self):
        with tempfile.NamedTemporaryFile(suffix=".so") as f:
            f.write(b"not an ELF file")
            f.flush()
            rc, out, err = run_child("import cuzk; cuzk.Prover()", CUZK_LIB=f.name)
            self.assertNotEqual(rc, 0)
            self.assertIn(f.name, err)
            self.assertIn("does not load", err)

    def test_another_shared_library_is_refused(self):
        code = ("import cuzk\n"
                "p = [l.split()[-1] for l in open('/proc/self/maps') if 'libc.so' in l "
                "or 'libc-' in l][0]\n"
                "try:\n    cuzk.load_library(p)\n"
                "except cuzk.LibraryError as e:\n    print('refused', e.path == p, e)\n")
        rc, out, err = run_child(code)
        self.assertEqual(rc, 0, err)
        self.assertIn("refused True", out)
        self.assertIn("is not libcuzk", out)

    def test_the_path_given_is_the_one_loaded(self):
        lib = os.path.join(ROOT, "build", "libcuzk.so")
        rc, out, err = run_child("import cuzk; cuzk.load_library(); print(cuzk.loaded_path())\n"
                                 "try:\n    cuzk.load_library('/elsewhere/libcuzk.so')\n"
                                 "except cuzk.LibraryError as e:\n    print('second:', e)\n",
                                 CUZK_LIB=lib)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines()[0], lib)
        self.assertIn("/elsewhere/libcuzk.so asked for", out)

    def test_checkout_build_is_found_without_cuzk_lib(self):
        rc, out, err = run_child("import cuzk; print(cuzk.loaded_path() or cuzk.load_library() "
                                 "and cuzk.loaded_path())")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.strip(), os.path.join(ROOT, "build", "libcuzk.so"))


    def test_a_bundled_copy_comes_before_the_checkout(self):
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(os.path.join(SRC, "cuzk"), os.path.join(d, "cuzk"))
            bundled = os.path.join(d, "cuzk", "libcuzk.so")
            shutil.copy(os.path.join(ROOT, "build", "libcuzk.so"), bundled)
            rc, out, err = run_child("import cuzk; cuzk.load_library(); print(cuzk.loaded_path())",
                                     path=d)
            self.assertEqual(rc, 0, err)
            self.assertEqual(out.strip(), bundled)

    def test_a_broken_bundled_copy_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(os.path.join(SRC, "cuzk"), os.path.join(d, "cuzk"))
            bundled = os.path.join(d, "cuzk", "libcuzk.so")
            with open(bundled, "wb") as f:
                f.write(b"truncated")
            rc, out, err = run_child("import cuzk; cuzk.load_library()", path=d)
            self.assertNotEqual(rc, 0)
            self.assertIn(f"library {bundled} does not load", err)


class LoggingTest(unittest.TestCase):
    def test_log_level_from_python_logging(self):
        self.assertEqual(library.log_level_name(10), "debug")
        self.assertEqual(library.log_level_name(20), "info")
        self.assertEqual(library.log_level_name(30), "warn")
        self.assertEqual(library.log_level_name(40), "error")
        rc, out, err = run_child("import logging, os, cuzk\n"
                                 "logging.getLogger('cuzk').setLevel(logging.INFO)\n"
                                 "cuzk.load_library(); print(os.environ['CUZK_LOG_LEVEL'])")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.strip(), "info")
        rc, out, err = run_child("import logging, os, cuzk\n"
                                 "logging.getLogger('cuzk').setLevel(logging.INFO)\n"
                                 "cuzk.load_library(); print(os.environ['CUZK_LOG_LEVEL'])",
                                 CUZK_LOG_LEVEL="error")
        self.assertEqual(out.strip(), "error", "an operator's CUZK_LOG_LEVEL wins")

    def test_forwarded_lines_become_records(self):
        code = (
            "import logging, sys, time, cuzk\n"
            "lib_log = cuzk.forward_library_log()\n"
            "got = []\n"
            "class H(logging.Handler):\n"
            "    def emit(self, r): got.append(r)\n"
            "lib_log.addHandler(H()); lib_log.propagate = False\n"
            "cuzk.Prover(config='[daemon]\\nlisten = \"0.0.0.0:9820\"\\n')\n"
            "sys.stderr.write('a plain line\\n'); sys.stderr.flush()\n"
            "deadline = time.time() + 10\n"
            "while not any('daemon.listen' in r.getMessage() for r in got) and time.time() < deadline:\n"
            "    time.sleep(0.05)\n"
            "for r in got:\n"
            "    print(r.levelname, r.getMessage())\n")
        rc, out, err = run_child(code)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"(?m)^WARNING config: daemon\.listen .* is ignored")
        self.assertNotIn("daemon.listen", err)
        self.assertIn("a plain line", err)

    def test_parse_line(self):
        from cuzk import logforward
        self.assertEqual(logforward.parse_line('time=t level=WARN msg="a \\"b\\"" k=1'),
                         (30, 'a "b"', "k=1"))
        self.assertEqual(logforward.parse_line("time=t level=DEBUG+2 msg=x"), (12, "x", ""))
        self.assertIsNone(logforward.parse_line("Traceback (most recent call last):"))


if __name__ == "__main__":
    unittest.main()
