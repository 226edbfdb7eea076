// Command mutate writes the file corpus of the robustness suite: mutants of
// a small valid fixture's parameter file, circuit (circom .r1cs and cuzk's
// own format) and witness (.wtns), deterministic from a seed, and a
// manifest (cases.tsv: id, kind, path) that tests/robustness/run.sh walks.
//
// A mutant's id names what was done to which file, e.g. "params/count-h=max"
// or "wtns/trunc@44", so an id means the same file in every run with the
// same seed and can be listed in known-defects.txt. Mutations follow the
// formats (core/params/doc.go, core/r1cs/format.go, the iden3 binary
// container of circom): truncations at every structural boundary and at
// seeded offsets, bit flips, byte overwrites in headers, counts set to 0,
// off-by-one and huge values, appended bytes, and sections swapped,
// duplicated or dropped.
//
// usage: mutate -fixture DIR -out DIR [-seed N] [-full]
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cuzk/cuzk/core/r1cs"
)

// corpus collects mutants of one base file under its kind.
type corpus struct {
	dir      string
	manifest *strings.Builder
	seen     map[string]bool
	n        int
}

func (c *corpus) add(kind, what string, data []byte) {
	id := kind + "/" + what
	if c.seen[id] {
		return
	}
	c.seen[id] = true
	c.n++
	name := fmt.Sprintf("%04d-%s", c.n, strings.NewReplacer("/", "_", "@", "_", "=", "_", "+", "p", ".", "_").Replace(id))
	path := filepath.Join(c.dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		fail(err)
	}
	fmt.Fprintf(c.manifest, "%s\t%s\t%s\n", id, kind, path)
}

// field is a count or size at a fixed offset of a file.
type field struct {
	name  string
	off   int
	width int  // 4 or 8 bytes
	big   bool // big-endian (params counts)
}

func (f field) get(b []byte) uint64 {
	switch {
	case f.width == 4 && f.big:
		return uint64(binary.BigEndian.Uint32(b[f.off:]))
	case f.width == 4:
		return uint64(binary.LittleEndian.Uint32(b[f.off:]))
	default:
		return binary.LittleEndian.Uint64(b[f.off:])
	}
}

func (f field) set(b []byte, v uint64) []byte {
	out := clone(b)
	switch {
	case f.width == 4 && f.big:
		binary.BigEndian.PutUint32(out[f.off:], uint32(v))
	case f.width == 4:
		binary.LittleEndian.PutUint32(out[f.off:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(out[f.off:], v)
	}
	return out
}

// span is a section of a file: [off, off+n).
type span struct {
	name   string
	off, n int
}

// layout is what the mutator knows of a file's structure.
type layout struct {
	fields   []field
	sections []span
	header   int // bytes of leading header worth overwriting byte by byte
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func mutateAll(c *corpus, kind string, base []byte, lay layout, rng *rand.Rand, full bool) {
	n := len(base)
	// Truncations: structural boundaries (and one byte either side), then
	// seeded offsets.
	cuts := map[int]bool{0: true, 1: true, 3: true, 4: true, 8: true, n / 2: true, n - 1: true}
	for _, f := range lay.fields {
		cuts[f.off] = true
		cuts[f.off+f.width] = true
		if full {
			cuts[f.off+1] = true
		}
	}
	for _, s := range lay.sections {
		for _, d := range []int{-1, 0, 1} {
			cuts[s.off+d] = true
			cuts[s.off+s.n+d] = true
		}
	}
	random := 6
	if full {
		random = 64
	}
	for i := 0; i < random; i++ {
		cuts[rng.IntN(n)] = true
	}
	offs := make([]int, 0, len(cuts))
	for o := range cuts {
		if o >= 0 && o < n {
			offs = append(offs, o)
		}
	}
	sort.Ints(offs)
	if !full && len(offs) > 10 {
		// Quick mode: about ten, spread over the boundaries.
		keep := offs[:0:0]
		for i, o := range offs {
			if i < 2 || i >= len(offs)-2 || i%(len(offs)/6) == 0 {
				keep = append(keep, o)
			}
		}
		offs = keep
	}
	for _, o := range offs {
		c.add(kind, fmt.Sprintf("trunc@%d", o), base[:o])
	}

	// Bit flips, half of them in the first 1 KiB where the structure is.
	flips := 4
	if full {
		flips = 96
	}
	for i := 0; i < flips; i++ {
		o := rng.IntN(n)
		if i%2 == 0 && n > 1024 {
			o = rng.IntN(1024)
		}
		bit := rng.IntN(8)
		b := clone(base)
		b[o] ^= 1 << bit
		c.add(kind, fmt.Sprintf("flip@%d.%d", o, bit), b)
	}

	// Byte overwrites across the header.
	// Quick mode spreads about 8 offsets over the header.
	step := max(4, lay.header/8)
	if full {
		step = 1
	}
	for o := 0; o < lay.header && o < n; o += step {
		for _, v := range []byte{0x00, 0xff} {
			if base[o] == v {
				continue
			}
			b := clone(base)
			b[o] = v
			c.add(kind, fmt.Sprintf("byte@%d=%02x", o, v), b)
		}
	}

	// Counts set to 0, off by one and huge.
	for _, f := range lay.fields {
		v := f.get(base)
		vals := map[string]uint64{"0": 0, "plus1": v + 1, "max": 1<<32 - 1, "2^31-1": 1<<31 - 1}
		if v > 0 {
			vals["minus1"] = v - 1
		}
		if f.width == 8 {
			vals["max"] = 1<<64 - 1
			vals["2^40"] = 1 << 40
			vals["2^62"] = 1 << 62
			vals["2^63"] = 1 << 63
		}
		keys := make([]string, 0, len(vals))
		for k := range vals {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !full && k != "max" && k != "plus1" && k != "2^40" && k != "2^31-1" {
				continue
			}
			c.add(kind, fmt.Sprintf("count-%s=%s", f.name, k), f.set(base, vals[k]))
		}
	}

	// Appended bytes.
	appends := []int{1, 96, 4096}
	if !full {
		appends = appends[1:2]
	}
	for _, k := range appends {
		tail := make([]byte, k)
		for i := range tail {
			tail[i] = byte(rng.Uint32())
		}
		c.add(kind, fmt.Sprintf("append+%d", k), append(clone(base), tail...))
	}

	// Sections swapped (adjacent pairs), duplicated and dropped.
	for i := 0; i+1 < len(lay.sections); i++ {
		s, t := lay.sections[i], lay.sections[i+1]
		if s.off+s.n != t.off {
			continue
		}
		b := append(clone(base[:s.off]), base[t.off:t.off+t.n]...)
		b = append(b, base[s.off:s.off+s.n]...)
		b = append(b, base[t.off+t.n:]...)
		c.add(kind, fmt.Sprintf("swap-%s-%s", s.name, t.name), b)
	}
	for i, s := range lay.sections {
		if !full && i > 0 {
			break
		}
		dup := append(clone(base[:s.off+s.n]), base[s.off:]...)
		c.add(kind, fmt.Sprintf("dup-%s", s.name), dup)
		drop := append(clone(base[:s.off]), base[s.off+s.n:]...)
		c.add(kind, fmt.Sprintf("drop-%s", s.name), drop)
	}
}

// paramsLayout follows core/params/doc.go: six fixed points, then ic, h,
// l, a, b_g1 (G1, 96 bytes) and b_g2 (G2, 192 bytes), each a u32
// big-endian count and its points.
func paramsLayout(b []byte) layout {
	lay := layout{header: 868}
	fixed := []struct {
		name string
		n    int
	}{{"alpha_g1", 96}, {"beta_g1", 96}, {"beta_g2", 192}, {"gamma_g2", 192}, {"delta_g1", 96}, {"delta_g2", 192}}
	off := 0
	for _, f := range fixed {
		lay.sections = append(lay.sections, span{f.name, off, f.n})
		off += f.n
	}
	for _, s := range []struct {
		name string
		size int
	}{{"ic", 96}, {"h", 96}, {"l", 96}, {"a", 96}, {"b_g1", 96}, {"b_g2", 192}} {
		f := field{s.name, off, 4, true}
		count := int(f.get(b))
		lay.fields = append(lay.fields, f)
		lay.sections = append(lay.sections, span{s.name, off, 4 + count*s.size})
		off += 4 + count*s.size
	}
	if off != len(b) {
		fail(fmt.Errorf("params layout: sections end at %d, file has %d bytes", off, len(b)))
	}
	return lay
}

// iden3Layout follows circom's binary container: magic, version u32,
// section count u32, then sections of type u32, size u64 and data. Header
// fields of section 1 are listed for the r1cs and wtns kinds.
func iden3Layout(b []byte, kind string) layout {
	lay := layout{header: 96, fields: []field{{"version", 4, 4, false}, {"nsections", 8, 4, false}}}
	off, nsec := 12, int(binary.LittleEndian.Uint32(b[8:]))
	for i := 0; i < nsec; i++ {
		typ := binary.LittleEndian.Uint32(b[off:])
		size := int(binary.LittleEndian.Uint64(b[off+4:]))
		name := fmt.Sprintf("sec%d", typ)
		lay.fields = append(lay.fields, field{name + "size", off + 4, 8, false})
		lay.sections = append(lay.sections, span{name, off, 12 + size})
		if typ == 1 {
			h := off + 12
			n8 := int(binary.LittleEndian.Uint32(b[h:]))
			lay.fields = append(lay.fields, field{"n8", h, 4, false})
			p := h + 4 + n8
			if kind == "wtns" {
				lay.fields = append(lay.fields, field{"nwitness", p, 4, false})
			} else {
				for j, nm := range []string{"nwires", "npubout", "npubin", "nprvin"} {
					lay.fields = append(lay.fields, field{nm, p + 4*j, 4, false})
				}
				lay.fields = append(lay.fields, field{"nlabels", p + 16, 8, false}, field{"nconstraints", p + 24, 4, false})
			}
		}
		off += 12 + size
	}
	return lay
}

// cuzkLayout follows core/r1cs/format.go: a 16-byte magic and version,
// seven u64 counts, the coefficients, the three matrices and a CRC-32C.
func cuzkLayout(b []byte) layout {
	lay := layout{header: 72}
	names := []string{"ninputs", "naux", "nconstraints", "ncoeffs", "nnza", "nnzb", "nnzc"}
	v := make([]int, len(names))
	for i, nm := range names {
		f := field{nm, 16 + 8*i, 8, false}
		lay.fields = append(lay.fields, f)
		v[i] = int(f.get(b))
	}
	lay.fields = append([]field{{"version", 8, 4, false}}, lay.fields...)
	off := 72
	lay.sections = append(lay.sections, span{"coeffs", off, 32 * v[3]})
	off += 32 * v[3]
	for i, m := range []string{"A", "B", "C"} {
		n := 8*(v[2]+1) + 8*v[4+i]
		lay.sections = append(lay.sections, span{m, off, n})
		off += n
	}
	lay.sections = append(lay.sections, span{"crc", off, 4})
	return lay
}

func read(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	return b
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(1)
}

func main() {
	fixture := flag.String("fixture", "", "fixture directory (c.params, c.r1cs, w.wtns)")
	out := flag.String("out", "", "directory for the mutants and cases.tsv")
	seed := flag.Uint64("seed", 1, "seed of the random offsets and bytes")
	full := flag.Bool("full", false, "the full corpus (default: the quick one)")
	examples := flag.String("config-examples", "", "configuration files to mutate, comma-separated (kind config)")
	fifo := flag.String("fifo", "", "a path that is a FIFO when the cases run (gpus.cuda_lib cases)")
	flag.Parse()
	if *fixture == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	// The cuzk-format twin of the circom circuit.
	cs, err := r1cs.ReadCircomR1CS(filepath.Join(*fixture, "c.r1cs"))
	if err != nil {
		fail(err)
	}
	cuzkPath := filepath.Join(*fixture, "c.cuzk.r1cs")
	if err := cs.WriteFile(cuzkPath); err != nil {
		fail(err)
	}

	var manifest strings.Builder
	c := &corpus{dir: *out, manifest: &manifest, seen: map[string]bool{}}
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	for _, k := range []struct {
		kind, file string
		lay        func([]byte) layout
	}{
		{"params", "c.params", paramsLayout},
		{"r1cs", "c.r1cs", func(b []byte) layout { return iden3Layout(b, "r1cs") }},
		{"cuzkr1cs", "c.cuzk.r1cs", cuzkLayout},
		{"wtns", "w.wtns", func(b []byte) layout { return iden3Layout(b, "wtns") }},
	} {
		base := read(filepath.Join(*fixture, k.file))
		mutateAll(c, k.kind, base, k.lay(base), rng, *full)
	}
	var ex []string
	if *examples != "" {
		ex = strings.Split(*examples, ",")
	}
	if *fifo == "" {
		*fifo = filepath.Join(*fixture, "fifo")
	}
	configCorpus(c, ex, *fifo, rng, *full)
	if err := os.WriteFile(filepath.Join(*out, "cases.tsv"), []byte(manifest.String()), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("mutate: %d mutants in %s\n", c.n, *out)
}
