package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/service"
	"github.com/cuzk/cuzk/core/synthetic"
)

// assignmentMeta is dump-assignment's assignment.json.
type assignmentMeta struct {
	ABCSize      int      `json:"abc_size"`
	DomainSize   int      `json:"domain_size"`
	NumInputs    int      `json:"num_inputs"`
	NumAux       int      `json:"num_aux"`
	AAuxPopcount int      `json:"a_aux_popcount"`
	BInpPopcount int      `json:"b_inp_popcount"`
	BAuxPopcount int      `json:"b_aux_popcount"`
	Public       []string `json:"public_inputs"` // decimal, without ONE
	Encoding     string   `json:"encoding"`
	Files        []string `json:"files"`
}

// dumpFiles are the files dump-assignment writes, in its order.
var dumpFiles = []string{"a.bin", "b.bin", "c.bin", "inputs.bin", "aux.bin", "a_aux_density.bin", "b_inp_density.bin", "b_aux_density.bin", "assignment.json"}

func runDump(args []string, stdout io.Writer) error {
	c := command("dump-assignment")
	pkPath := c.input("params", "parameter file (its section counts checked against the circuit)")
	circuit := c.input("r1cs", "circuit (circom .r1cs or cuzk format)")
	wtns := c.input("wtns", "witness (circom .wtns)")
	dir := c.outputDir("out", "directory to write", dumpFiles...)
	c.fs.Bool("trusted-params", false, "accepted and ignored: only the parameter file's section counts are read")
	// The configuration is read for its errors only: nothing here uses it.
	c.withConfig(configHelp)
	c.withQuiet()
	c.require("params", "r1cs", "wtns", "out")
	defer c.close()
	if err := c.start(args, stdout); err != nil {
		return err
	}
	m, stdout := c.m, c.stdout
	// The assignment needs the key's shape only: the circuit is checked
	// against the file's section counts, no point decoded (a 2^27-domain
	// key is ~71 GB).
	var cs *r1cs.R1CS
	var w *r1cs.Witness
	if err := m.stage("load circuit", func() (err error) { cs, err = loadCircuit(*circuit); return }); err != nil {
		return err
	}
	if err := m.stage("load witness", func() (err error) { w, err = loadWitness(cs, *wtns); return }); err != nil {
		return err
	}
	layout, err := params.ReadLayout(*pkPath)
	if err != nil {
		return paramsIn.failed(*pkPath, err)
	}
	if err := groth16.CheckLayout(layout, cs); err != nil {
		return inputErr(err)
	}
	if err := writeAssignment(*dir, cs, w); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the assignment (%d rows, domain %d, %d inputs, %d aux) to %s\n", cs.Rows(), cs.DomainSize(), cs.NumInputs, cs.NumAux, *dir)
	return nil
}

// writeAssignment evaluates a, b, c of w (every row checked) and writes
// them with the inputs, aux and density bitmaps into dir, as
// dump-assignment's files (dumpFiles).
func writeAssignment(dir string, cs *r1cs.R1CS, w *r1cs.Witness) error {
	n := cs.DomainSize()
	a, b, cv := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	if err := cs.Eval(w, a, b, cv, r1cs.EvalOptions{Check: true}); err != nil {
		return inputErr(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return inputErr(err)
	}
	rows := cs.Rows()
	meta := assignmentMeta{ABCSize: rows, DomainSize: n, NumInputs: cs.NumInputs, NumAux: cs.NumAux,
		AAuxPopcount: cs.Density.AAux.Count(), BInpPopcount: cs.Density.BInput.Count(), BAuxPopcount: cs.Density.BAux.Count(),
		Encoding: "32-byte field elements in Montgomery form, little-endian 64-bit limbs; bitmaps as little-endian u64 words, least significant bit first"}
	for _, x := range w.Inputs[1:] {
		meta.Public = append(meta.Public, x.BigInt(new(big.Int)).String())
	}
	// in a fixed order: assignment.json lists the files as written
	for i, v := range [][]fr.Element{a[:rows], b[:rows], cv[:rows], w.Inputs, w.Aux} {
		name := dumpFiles[i]
		buf := make([]byte, 32*len(v))
		service.EncodeElements(buf, v, false)
		if err := writeFile(filepath.Join(dir, name), buf); err != nil {
			return err
		}
		meta.Files = append(meta.Files, name)
	}
	for i, bm := range []r1cs.Bitmap{cs.Density.AAux, cs.Density.BInput, cs.Density.BAux} {
		name := dumpFiles[5+i]
		buf := make([]byte, 8*len(bm.Words))
		for i, word := range bm.Words {
			binary.LittleEndian.PutUint64(buf[8*i:], word)
		}
		if err := writeFile(filepath.Join(dir, name), buf); err != nil {
			return err
		}
		meta.Files = append(meta.Files, name)
	}
	js, _ := json.MarshalIndent(meta, "", "  ")
	if err := writeFile(filepath.Join(dir, dumpFiles[8]), js); err != nil {
		return err
	}
	return nil
}

func runGenerate(args []string, stdout io.Writer) error {
	c := command("generate")
	spec := synthetic.Spec{Constraints: 1 << 10, DenseFraction: 0.5, Seed: 1}
	c.fs.IntVar(&spec.Constraints, "constraints", spec.Constraints, "rows of the circuit")
	c.fs.Float64Var(&spec.DenseFraction, "dense", spec.DenseFraction, "share of hash-chain (dense) constraints")
	c.fs.Uint64Var(&spec.Seed, "seed", spec.Seed, "witness seed (the circuit does not depend on it)")
	circuit := c.output("r1cs", "circuit file to write (circom .r1cs format)")
	wtns := c.output("wtns", "witness file to write (circom .wtns format)")
	dir := c.outputDir("dump", "also (or instead) write the assignment as dump-assignment does: the drop-in bench's input, without the circuit and witness files", dumpFiles...)
	tiled := c.output("tiled-params", "also write a tiled benchmark key for the circuit, as setup --tiled does (proofs do NOT verify)")
	tiledSeed := c.fs.Uint64("tiled-seed", 0, "seed of the tiled key's points")
	c.withConfig("configuration (TOML or JSON); srs.validation_record_dir is where --tiled-params is recorded as valid")
	c.withQuiet()
	defer c.close()
	if err := c.start(args, stdout); err != nil {
		return err
	}
	m, stdout := c.m, c.stdout
	if (*circuit == "") != (*wtns == "") {
		return inputErr(fmt.Errorf("--r1cs and --wtns go together (the witness is of that circuit)"))
	}
	if *circuit == "" && *dir == "" {
		return inputErr(fmt.Errorf("nothing to write: give --r1cs and --wtns, or --dump"))
	}
	var cs *r1cs.R1CS
	var w *r1cs.Witness
	if err := m.stage("generate", func() (err error) { cs, w, err = synthetic.Generate(spec); return }); err != nil {
		return inputErr(err)
	}
	if *circuit != "" {
		if err := m.stage("write circuit", func() error { return writeFile(*circuit, cs.EncodeCircomR1CS()) }); err != nil {
			return err
		}
		if err := m.stage("write witness", func() error { return writeFile(*wtns, r1cs.EncodeCircomWitness(w)) }); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d constraints, %d inputs, %d aux) and %s\n", *circuit, cs.NumConstraints, cs.NumInputs, cs.NumAux, *wtns)
	}
	if *dir != "" {
		if err := m.stage("write assignment", func() error { return writeAssignment(*dir, cs, w) }); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the assignment (%d rows, domain %d, %d inputs, %d aux) to %s\n", cs.Rows(), cs.DomainSize(), cs.NumInputs, cs.NumAux, *dir)
	}
	// The key after the assignment, whose vectors are given back first: at
	// a 2^27 domain the key (~71 GB, often written to /dev/shm) and a, b, c
	// (~13 GB) together with the circuit would not fit a 128 GiB host.
	if *tiled != "" {
		debug.FreeOSMemory()
		if err := m.stage("write tiled key", func() error { return synthetic.WriteTiledKey(*tiled, cs, *tiledSeed) }); err != nil {
			return inputErr(err)
		}
		recordWritten(m, *tiled, c.cfg)
		fmt.Fprintf(stdout, "wrote %s: domain 2^%d (tiled benchmark key: proofs do not verify)\n", *tiled, log2(cs.DomainSize()))
	}
	return nil
}
