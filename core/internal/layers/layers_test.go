package layers

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// goFile is one parsed Go file of the module.
type goFile struct {
	path string // relative to the module root
	pkg  string // the package's directory, relative to the module root
	test bool   // a _test.go file
	ast  *ast.File
}

// moduleRoot is the directory holding go.mod, above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// modulePath is the module's import path, from go.mod.
func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// parseTree parses every Go file of the module (testdata, hidden
// directories and nested modules left out).
func parseTree(t *testing.T, root string) []goFile {
	t.Helper()
	var files []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "node_modules" || name == "target" || name == "build" || name == "bin") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files = append(files, goFile{
			path: filepath.ToSlash(rel),
			pkg:  filepath.ToSlash(filepath.Dir(rel)),
			test: strings.HasSuffix(name, "_test.go"),
			ast:  f,
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Go files found under the module root")
	}
	return files
}

// floorRow is a row of the README's floor table: "| 8. hosts | `a`, `b` |".
var floorRow = regexp.MustCompile(`^\|\s*(\d+)\.[^|]*\|(.*)\|\s*$`)

// readFloors reads the floors drawn in README.md: package directory (or
// "dir/..." for a directory and everything below it) to floor number.
func readFloors(t *testing.T, root string) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	floors := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := floorRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, cell := range strings.Split(m[2], ",") {
			cell = strings.Trim(strings.TrimSpace(cell), "`")
			if cell == "" {
				continue
			}
			if prev, ok := floors[cell]; ok {
				t.Fatalf("README.md: %s is on floors %d and %d", cell, prev, n)
			}
			floors[cell] = n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(floors) == 0 {
		t.Fatal("README.md draws no floors (rows like \"| 1. foundations | `core/ntt`, ... |\" under Architecture)")
	}
	return floors
}

// floorOf is the floor of a package directory; ok false when the README
// puts it on none.
func floorOf(floors map[string]int, pkg string) (int, bool) {
	if n, ok := floors[pkg]; ok {
		return n, true
	}
	for p := pkg; p != "." && p != ""; p = filepath.ToSlash(filepath.Dir(p)) {
		if n, ok := floors[p+"/..."]; ok {
			return n, true
		}
	}
	return 0, false
}

// host says whether a package may read the environment: the command, the
// C library and the test tools.
func host(pkg string) bool {
	return pkg == "capi" || pkg == "core/cmd" || strings.HasPrefix(pkg, "core/cmd/") || strings.HasPrefix(pkg, "tests/")
}

// imports lists a file's imports of the module's own packages, as package
// directories.
func imports(f goFile, module string) []string {
	var out []string
	for _, im := range f.ast.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if p == module {
			out = append(out, ".")
		} else if strings.HasPrefix(p, module+"/") {
			out = append(out, strings.TrimPrefix(p, module+"/"))
		}
	}
	return out
}

// envReaders are the calls that read the process's environment.
var envReaders = map[string]map[string]bool{
	"os": {"Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true,
		"UserCacheDir": true, "UserConfigDir": true, "UserHomeDir": true},
	"syscall": {"Getenv": true, "Environ": true},
}

// envReads lists where a file reads the environment ("file:line: os.Getenv").
func envReads(fset *token.FileSet, f goFile) []string {
	local := map[string]string{} // the name a file gives a package -> its path
	for _, im := range f.ast.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if _, ok := envReaders[p]; !ok {
			continue
		}
		name := p
		if im.Name != nil {
			name = im.Name.Name
		}
		local[name] = p
	}
	if len(local) == 0 {
		return nil
	}
	var out []string
	ast.Inspect(f.ast, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if p, ok := local[id.Name]; ok && envReaders[p][sel.Sel.Name] {
			out = append(out, fmt.Sprintf("%s: %s.%s", f.path, p, sel.Sel.Name))
		}
		return true
	})
	return out
}

// violations checks the module at root against the README's floors.
func violations(t *testing.T, root string) []string {
	t.Helper()
	module := modulePath(t, root)
	floors := readFloors(t, root)
	files := parseTree(t, root)
	fset := token.NewFileSet()

	var unplaced, upward, env, capi []string
	seenUnplaced := map[string]bool{}
	for _, f := range files {
		floor, placed := floorOf(floors, f.pkg)
		if !placed && !host(f.pkg) && !seenUnplaced[f.pkg] {
			seenUnplaced[f.pkg] = true
			unplaced = append(unplaced, fmt.Sprintf("package %s is on no floor of README.md's Architecture table: give it one", f.pkg))
		}
		if f.test {
			continue // tests may use helpers from any floor
		}
		for _, im := range imports(f, module) {
			if f.pkg == "capi" && im != "core/service" {
				capi = append(capi, fmt.Sprintf("capi reaches past core/service: %s imports %s", f.path, im))
			}
			if !placed {
				continue
			}
			to, ok := floorOf(floors, im)
			if !ok {
				continue // reported as unplaced with its own files
			}
			if to >= floor {
				upward = append(upward, fmt.Sprintf("import at or above its own floor: %s (floor %d) imports %s (floor %d)", f.path, floor, im, to))
			}
		}
		if !host(f.pkg) {
			for _, e := range envReads(fset, f) {
				env = append(env, "the environment read below the hosts (parse it in core/cmd or capi, pass it down): "+e)
			}
		}
	}
	var out []string
	for _, l := range [][]string{unplaced, upward, env, capi} {
		sort.Strings(l)
		out = append(out, l...)
	}
	return out
}

func TestLayers(t *testing.T) {
	for _, v := range violations(t, moduleRoot(t)) {
		t.Error(v)
	}
}

// TestLayersCatchesEachRule runs the check on a small module written for
// it, one file breaking each rule, and one file of each kind keeping them.
func TestLayersCatchesEachRule(t *testing.T) {
	root := t.TempDir()
	write := func(path, body string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("README.md", "| floor | packages |\n|---|---|\n"+
		"| 8. hosts | `core/cmd/x`, `capi` |\n| 7. service | `core/service` |\n"+
		"| 3. middle | `core/mid` |\n| 1. base | `core/base`, `core/internal/...` |\n")
	write("core/base/base.go", "package base\n\nimport \"example.com/m/core/mid\"\n\nvar _ = mid.X\n")
	write("core/base/ok_test.go", "package base\n\nimport (\n\t\"os\"\n\n\t_ \"example.com/m/core/service\"\n)\n\nvar _ = os.Getenv(\"T\")\n")
	write("core/mid/mid.go", "package mid\n\nimport (\n\tgoos \"os\"\n\n\t\"example.com/m/core/base\"\n\t_ \"example.com/m/core/internal/par\"\n)\n\nvar X, _ = goos.LookupEnv(\"X\")\nvar _ = base.Y\n")
	write("core/mid/same.go", "package mid\n\nimport _ \"example.com/m/core/mid/sub\"\n")
	write("core/mid/sub/sub.go", "package sub\n")
	write("core/internal/par/par.go", "package par\n\nimport \"syscall\"\n\nvar _ = syscall.Environ()\n")
	write("core/service/s.go", "package service\n\nimport _ \"example.com/m/core/mid\"\n")
	write("core/cmd/x/main.go", "package main\n\nimport (\n\t\"os\"\n\n\t_ \"example.com/m/core/mid\"\n)\n\nfunc main() { _ = os.Getenv(\"HOME\") }\n")
	write("capi/c.go", "package main\n\nimport (\n\t\"os\"\n\n\t_ \"example.com/m/core/base\"\n\t_ \"example.com/m/core/service\"\n)\n\nvar _, _ = os.UserCacheDir()\n")
	write("core/base/testdata/bad.go", "package bad\n\nimport \"os\"\n\nvar _ = os.Getenv(\"X\")\n")

	got := violations(t, root)
	want := []string{
		"package core/mid/sub is on no floor",
		"core/base/base.go (floor 1) imports core/mid (floor 3)",
		"core/mid/mid.go: os.LookupEnv",
		"core/internal/par/par.go: syscall.Environ",
		"capi/c.go imports core/base",
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.Contains(g, w)
		}
		if !found {
			t.Errorf("no violation reported containing %q; got:\n%s", w, strings.Join(got, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d violations, want %d (the files keeping the rules must pass):\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}
