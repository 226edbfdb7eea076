package cuda

// The kernel ABI's repeated parts are generated from cuda/cuzk_cuda.h, the
// one table of entry points: the C++ declarations the concept files define
// (cuda/api_gen.h), the exports that marshal the typed handles
// (cuda/api_gen.cu), this package's function pointer types and their
// callers (calls_gen.h), and the library's
// symbols with their dlsym binding (symbols_gen.go).
//
// A new entry point is its prototype and comment in cuzk_cuda.h, its
// cuzk::name in a concept file, and its caller here; then
//
//	make generate   (go test ./core/backend/cuda -run TestABIGenerated -update)
//
// TestABIGenerated fails when a generated file differs from what the header
// gives. An entry point whose export a hand-written cuda/api_*.cu defines
// (it marshals more than handles) gets no generated export or declaration.

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the files generated from cuda/cuzk_cuda.h")

const banner = "Code generated from cuda/cuzk_cuda.h by core/backend/cuda/abigen_test.go (make generate); DO NOT EDIT."

// abiParam is one parameter of an entry point.
type abiParam struct {
	typ, name string
}

// abiFunc is one entry point of cuzk_cuda.h.
type abiFunc struct {
	ret    string
	name   string // without the cuzk_cuda_ prefix
	params []abiParam
}

// handleTypes are the header's opaque handle types.
var handleTypes = map[string]bool{
	"cuzk_cuda_g1_set": true, "cuzk_cuda_g2_set": true, "cuzk_cuda_scalars": true,
	"cuzk_cuda_abc": true, "cuzk_cuda_stream": true,
}

var (
	commentRE = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	protoRE   = regexp.MustCompile(`(?s)\b(int|void)\s+cuzk_cuda_(\w+)\s*\(([^)]*)\)\s*;`)
	paramRE   = regexp.MustCompile(`^(.*?[\s*])(\w+)$`)
	exportRE  = regexp.MustCompile(`extern\s+"C"\s+\w+\s+cuzk_cuda_(\w+)\s*\(`)
)

// parseHeader reads the entry points of cuzk_cuda.h in their order.
func parseHeader(src string) ([]abiFunc, error) {
	src = commentRE.ReplaceAllString(src, " ")
	var out []abiFunc
	for _, m := range protoRE.FindAllStringSubmatch(src, -1) {
		f := abiFunc{ret: m[1], name: m[2]}
		args := strings.Join(strings.Fields(m[3]), " ")
		if args != "void" {
			for _, a := range strings.Split(args, ",") {
				a = strings.TrimSpace(a)
				pm := paramRE.FindStringSubmatch(a)
				if pm == nil {
					return nil, fmt.Errorf("cuzk_cuda_%s: cannot read parameter %q", f.name, a)
				}
				typ := strings.ReplaceAll(strings.TrimSpace(pm[1]), " *", "*")
				f.params = append(f.params, abiParam{typ: typ, name: pm[2]})
			}
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no entry points found")
	}
	return out, nil
}

// handleOf says whether t is a handle (T*) or a handle out-parameter (T**),
// and of which type.
func handleOf(t string) (base string, out bool, ok bool) {
	b := strings.TrimRight(t, "*")
	if !handleTypes[b] {
		return "", false, false
	}
	switch strings.Count(t, "*") {
	case 1:
		return b, false, true
	case 2:
		return b, true, true
	}
	return "", false, false
}

// untyped is t with a handle type as the concept files see it (void*).
func untyped(t string) string {
	if _, out, ok := handleOf(t); ok {
		if out {
			return "void**"
		}
		return "void*"
	}
	return t
}

func (f abiFunc) optional() bool { return strings.HasPrefix(f.name, "bench_") }

func (f abiFunc) paramList(typ func(string) string) string {
	if len(f.params) == 0 {
		return "void"
	}
	var ps []string
	for _, p := range f.params {
		ps = append(ps, typ(p.typ)+" "+p.name)
	}
	return strings.Join(ps, ", ")
}

func (f abiFunc) typeList() string {
	if len(f.params) == 0 {
		return "void"
	}
	var ps []string
	for _, p := range f.params {
		ps = append(ps, p.typ)
	}
	return strings.Join(ps, ", ")
}

// goName is the Library field of cuzk_cuda_<name>: g1_upload -> g1Upload.
func goName(name string) string {
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// handWritten lists the entry points whose export a hand-written
// cuda/api_*.cu defines.
func handWritten(cudaDir string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(cudaDir, "api_*.cu"))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, p := range files {
		if filepath.Base(p) == "api_gen.cu" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for _, m := range exportRE.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
	}
	return out, nil
}

func genAPIHeader(fs []abiFunc, hand map[string]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n//\n", banner)
	b.WriteString("// The C++ functions behind cuzk_cuda.h's entry points: cuzk::X is\n" +
		"// cuzk_cuda_X with every handle as the void* its concept file casts to\n" +
		"// its own type. A concept file defines each; api_gen.cu exports it.\n")
	b.WriteString("#pragma once\n#include <stddef.h>\n#include <stdint.h>\n\n#include \"cuzk_cuda.h\"\n\nnamespace cuzk {\n\n")
	for _, f := range fs {
		if hand[f.name] {
			continue
		}
		fmt.Fprintf(&b, "%s %s(%s);\n", f.ret, f.name, f.paramList(untyped))
	}
	b.WriteString("\n}  // namespace cuzk\n")
	return b.String()
}

func genAPIExports(fs []abiFunc, hand map[string]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n//\n", banner)
	b.WriteString("// cuzk_cuda.h's entry points that only marshal handles: each exports its\n" +
		"// cuzk:: function (api_gen.h), a handle out-parameter written only on\n" +
		"// success (handle_out, api.h). The bench entry points are in a bench build\n" +
		"// only (CUZK_CUDA_BENCH).\n")
	b.WriteString("#include \"api.h\"\n#include \"cuzk_cuda.h\"\n")
	for _, f := range fs {
		if hand[f.name] {
			continue
		}
		b.WriteString("\n")
		if f.optional() {
			b.WriteString("#ifdef CUZK_CUDA_BENCH\n")
		}
		fmt.Fprintf(&b, "extern \"C\" %s cuzk_cuda_%s(%s) {\n", f.ret, f.name, f.paramList(func(t string) string { return t }))
		var args []string
		for _, p := range f.params {
			if base, out, ok := handleOf(p.typ); ok && out {
				fmt.Fprintf(&b, "    cuzk::handle_out<%s> %s_out(%s);\n", base, p.name, p.name)
				args = append(args, p.name+"_out")
				continue
			}
			args = append(args, p.name)
		}
		call := fmt.Sprintf("cuzk::%s(%s)", f.name, strings.Join(args, ", "))
		for _, p := range f.params {
			if _, out, ok := handleOf(p.typ); ok && out {
				call = fmt.Sprintf("%s_out.done(%s)", p.name, call)
				break // one handle out-parameter at most (checked by genAll)
			}
		}
		if f.ret == "void" {
			fmt.Fprintf(&b, "    %s;\n", call)
		} else {
			fmt.Fprintf(&b, "    return %s;\n", call)
		}
		b.WriteString("}\n")
		if f.optional() {
			b.WriteString("#endif\n")
		}
	}
	return b.String()
}

func genCalls(fs []abiFunc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n//\n", banner)
	b.WriteString("// For each entry point of cuzk_cuda.h: its function pointer type, the\n" +
		"// header's own, and a caller (cgo cannot call a function pointer) that\n" +
		"// takes Go's void* handles and passes them as the header's opaque types;\n" +
		"// a handle out-parameter is written only on success.\n")
	b.WriteString("#ifndef CUZK_CALLS_GEN_H\n#define CUZK_CALLS_GEN_H\n#include <stddef.h>\n#include <stdint.h>\n#include \"cuzk_cuda.h\"\n\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "typedef %s (*cuzk_cuda_%s_fn)(%s);\n", f.ret, f.name, f.typeList())
	}
	for _, f := range fs {
		b.WriteString("\n")
		params := []string{"void* f"}
		var args, pre, post []string
		for _, p := range f.params {
			if base, out, ok := handleOf(p.typ); ok {
				if out {
					params = append(params, "void** "+p.name)
					pre = append(pre, fmt.Sprintf("    %s* %s_out = NULL;\n", base, p.name))
					args = append(args, "&"+p.name+"_out")
					post = append(post, fmt.Sprintf("    if (rc == 0) *%s = %s_out;\n", p.name, p.name))
				} else {
					params = append(params, "void* "+p.name)
					args = append(args, fmt.Sprintf("(%s*)%s", base, p.name))
				}
				continue
			}
			params = append(params, p.typ+" "+p.name)
			args = append(args, p.name)
		}
		call := fmt.Sprintf("((cuzk_cuda_%s_fn)f)(%s)", f.name, strings.Join(args, ", "))
		fmt.Fprintf(&b, "static %s call_%s(%s) {\n", f.ret, f.name, strings.Join(params, ", "))
		switch {
		case len(post) > 0:
			b.WriteString(strings.Join(pre, ""))
			fmt.Fprintf(&b, "    int rc = %s;\n", call)
			b.WriteString(strings.Join(post, ""))
			b.WriteString("    return rc;\n")
		case f.ret == "void":
			fmt.Fprintf(&b, "    %s;\n", call)
		default:
			fmt.Fprintf(&b, "    return %s;\n", call)
		}
		b.WriteString("}\n")
	}
	b.WriteString("\n#endif\n")
	return b.String()
}

func genSymbols(fs []abiFunc) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n\npackage cuda\n\nimport \"unsafe\"\n\n", banner)
	b.WriteString("// symbols are libcuzk_cuda.so's entry points, found with dlsym: the field\n" +
		"// of cuzk_cuda_x_y is xY. The bench entry points are nil in a library\n" +
		"// built without them.\n")
	b.WriteString("type symbols struct {\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "\t%s unsafe.Pointer // cuzk_cuda_%s\n", goName(f.name), f.name)
	}
	b.WriteString("}\n\n")
	b.WriteString("// bind finds every entry point with sym: an error for a missing one, nil\n" +
		"// left for a missing bench entry point.\n")
	b.WriteString("func (s *symbols) bind(sym func(name string) (unsafe.Pointer, error)) error {\n\tvar err error\n")
	for _, f := range fs {
		if f.optional() {
			fmt.Fprintf(&b, "\ts.%s, _ = sym(\"cuzk_cuda_%s\")\n", goName(f.name), f.name)
			continue
		}
		fmt.Fprintf(&b, "\tif s.%s, err = sym(\"cuzk_cuda_%s\"); err != nil {\n\t\treturn err\n\t}\n", goName(f.name), f.name)
	}
	b.WriteString("\treturn nil\n}\n")
	src, err := format.Source([]byte(b.String()))
	return string(src), err
}

// generated is every generated file's path (from the module root) and
// contents.
func generated(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..", "..", "..")
	cudaDir := filepath.Join(root, "cuda")
	src, err := os.ReadFile(filepath.Join(cudaDir, "cuzk_cuda.h"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := parseHeader(string(src))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.name] {
			t.Fatalf("cuzk_cuda_%s declared twice", f.name)
		}
		seen[f.name] = true
		outs := 0
		for _, p := range f.params {
			if _, out, ok := handleOf(p.typ); ok && out {
				outs++
			}
		}
		if outs > 1 {
			t.Fatalf("cuzk_cuda_%s has %d handle out-parameters: the generator handles one", f.name, outs)
		}
	}
	hand, err := handWritten(cudaDir)
	if err != nil {
		t.Fatal(err)
	}
	for n := range hand {
		if !seen[n] {
			t.Fatalf("a hand-written export cuzk_cuda_%s is not in cuzk_cuda.h", n)
		}
	}
	syms, err := genSymbols(fs)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"cuda/api_gen.h":                   genAPIHeader(fs, hand),
		"cuda/api_gen.cu":                  genAPIExports(fs, hand),
		"core/backend/cuda/calls_gen.h":    genCalls(fs),
		"core/backend/cuda/symbols_gen.go": syms,
	}
}

// TestABIGenerated checks that the files generated from cuda/cuzk_cuda.h
// are up to date (-update rewrites them).
func TestABIGenerated(t *testing.T) {
	files := generated(t)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join("..", "..", "..", filepath.FromSlash(n))
		if *update {
			if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v (make generate writes it)", n, err)
			continue
		}
		if !bytes.Equal(have, []byte(files[n])) {
			t.Errorf("%s is not what cuda/cuzk_cuda.h gives: run make generate", n)
		}
	}
}

// TestABIParse checks the header reader on declarations written for it.
func TestABIParse(t *testing.T) {
	fs, err := parseHeader(`/* int cuzk_cuda_commented(int x); */
int cuzk_cuda_a(int dev, const void* p, size_t n, cuzk_cuda_g1_set** h, char* err,
                size_t errlen);
void cuzk_cuda_b(cuzk_cuda_scalars *s);
int cuzk_cuda_c(void);`)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 3 || fs[0].name != "a" || fs[1].name != "b" || fs[2].name != "c" {
		t.Fatalf("parsed %+v", fs)
	}
	if got := fs[0].typeList(); got != "int, const void*, size_t, cuzk_cuda_g1_set**, char*, size_t" {
		t.Errorf("a: %s", got)
	}
	if got := fs[1].paramList(untyped); got != "void* s" {
		t.Errorf("b untyped: %s", got)
	}
	if fs[1].ret != "void" || len(fs[2].params) != 0 {
		t.Errorf("b, c: %+v %+v", fs[1], fs[2])
	}
	if goName("msm_g1_resident") != "msmG1Resident" {
		t.Errorf("goName: %s", goName("msm_g1_resident"))
	}
}
