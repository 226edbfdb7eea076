package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"

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

func runDump(args []string, stdout io.Writer) error {
	fs := flags("dump-assignment")
	pkPath := fs.String("params", "", "parameter file (its section counts checked against the circuit)")
	circuit := fs.String("r1cs", "", "circuit (circom .r1cs or cuzk format)")
	wtns := fs.String("wtns", "", "witness (circom .wtns)")
	dir := fs.String("out", "", "directory to write")
	fs.Bool("trusted-params", false, "accepted and ignored: only the parameter file's section counts are read")
	cfgPath := fs.String("config", "", configHelp)
	quiet := fs.Bool("quiet", false, quietHelp)
	if err := parse(fs, args, "params", "r1cs", "wtns", "out"); err != nil {
		return err
	}
	// The configuration is read for its errors only: nothing here uses it.
	if _, err := loadConfig(*cfgPath); err != nil {
		return err
	}
	m := newMeter(progressOut, *quiet)
	defer m.close()
	stdout = m.writer(stdout)
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
	n := cs.DomainSize()
	a, b, c := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	if err := cs.Eval(w, a, b, c, r1cs.EvalOptions{Check: true}); err != nil {
		return inputErr(err)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
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
	elems := []struct {
		name string
		v    []fr.Element
	}{{"a.bin", a[:rows]}, {"b.bin", b[:rows]}, {"c.bin", c[:rows]}, {"inputs.bin", w.Inputs}, {"aux.bin", w.Aux}}
	for _, e := range elems {
		name, v := e.name, e.v
		buf := make([]byte, 32*len(v))
		service.EncodeElements(buf, v, false)
		if err := writeFile(filepath.Join(*dir, name), buf); err != nil {
			return err
		}
		meta.Files = append(meta.Files, name)
	}
	bitmaps := []struct {
		name string
		bm   r1cs.Bitmap
	}{{"a_aux_density.bin", cs.Density.AAux}, {"b_inp_density.bin", cs.Density.BInput}, {"b_aux_density.bin", cs.Density.BAux}}
	for _, e := range bitmaps {
		name, bm := e.name, e.bm
		buf := make([]byte, 8*len(bm.Words))
		for i, word := range bm.Words {
			binary.LittleEndian.PutUint64(buf[8*i:], word)
		}
		if err := writeFile(filepath.Join(*dir, name), buf); err != nil {
			return err
		}
		meta.Files = append(meta.Files, name)
	}
	js, _ := json.MarshalIndent(meta, "", "  ")
	if err := writeFile(filepath.Join(*dir, "assignment.json"), js); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the assignment (%d rows, domain %d, %d inputs, %d aux) to %s\n", rows, n, cs.NumInputs, cs.NumAux, *dir)
	return nil
}

func runGenerate(args []string, stdout io.Writer) error {
	fs := flags("generate")
	spec := synthetic.Spec{Constraints: 1 << 10, DenseFraction: 0.5, Seed: 1}
	fs.IntVar(&spec.Constraints, "constraints", spec.Constraints, "rows of the circuit")
	fs.Float64Var(&spec.DenseFraction, "dense", spec.DenseFraction, "share of hash-chain (dense) constraints")
	fs.Uint64Var(&spec.Seed, "seed", spec.Seed, "witness seed (the circuit does not depend on it)")
	circuit := fs.String("r1cs", "", "circuit file to write (circom .r1cs format)")
	wtns := fs.String("wtns", "", "witness file to write (circom .wtns format)")
	if err := parse(fs, args, "r1cs", "wtns"); err != nil {
		return err
	}
	cs, w, err := synthetic.Generate(spec)
	if err != nil {
		return inputErr(err)
	}
	if err := writeFile(*circuit, cs.EncodeCircomR1CS()); err != nil {
		return err
	}
	if err := writeFile(*wtns, r1cs.EncodeCircomWitness(w)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d constraints, %d inputs, %d aux) and %s\n", *circuit, cs.NumConstraints, cs.NumInputs, cs.NumAux, *wtns)
	return nil
}
