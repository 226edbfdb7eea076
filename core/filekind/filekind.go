package filekind

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/snarkjs"
)

// Kind is what a file is.
type Kind int

// The kinds Sniff tells apart.
const (
	Unknown Kind = iota
	Empty
	Params       // bellperson .params: verifying key and every query
	VerifyingKey // bellperson .vk
	Proofs       // one or more 192-byte proofs
	CircomR1CS
	CircomWitness
	CuzkCircuit
	SnarkjsVerifyingKey
	SnarkjsProof
	SnarkjsPublic
	SnarkjsZkey
	Ptau
	JSON // JSON of no shape above
)

var kindNames = [...]string{
	Unknown:             "a file of no kind cuzk knows",
	Empty:               "an empty file",
	Params:              "a parameter file (bellperson .params)",
	VerifyingKey:        "a verifying key (bellperson .vk)",
	Proofs:              "a proof file (192-byte bellperson proofs)",
	CircomR1CS:          "a circom circuit (.r1cs)",
	CircomWitness:       "a circom witness (.wtns)",
	CuzkCircuit:         "a cuzk circuit file",
	SnarkjsVerifyingKey: "a snarkjs verifying key (verification_key.json)",
	SnarkjsProof:        "a snarkjs proof (proof.json)",
	SnarkjsPublic:       "snarkjs public inputs (public.json)",
	SnarkjsZkey:         "a snarkjs proving key (.zkey, which cuzk does not read)",
	Ptau:                "a powers-of-tau file (.ptau, which cuzk does not read)",
	JSON:                "JSON of no kind cuzk knows",
}

var kindIDs = [...]string{
	Unknown: "unknown", Empty: "empty", Params: "params", VerifyingKey: "vk", Proofs: "proofs",
	CircomR1CS: "circom-r1cs", CircomWitness: "circom-wtns", CuzkCircuit: "cuzk-circuit",
	SnarkjsVerifyingKey: "snarkjs-vk", SnarkjsProof: "snarkjs-proof", SnarkjsPublic: "snarkjs-public",
	SnarkjsZkey: "snarkjs-zkey", Ptau: "ptau", JSON: "json",
}

// ID is the kind's short name for programs: "params", "circom-wtns", ...
func (k Kind) ID() string {
	if k < 0 || int(k) >= len(kindIDs) {
		return kindIDs[Unknown]
	}
	return kindIDs[k]
}

// String names the kind as a sentence does: "a circom witness (.wtns)".
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return kindNames[Unknown]
	}
	return kindNames[k]
}

// Count is one size a file declares.
type Count struct {
	Name string
	N    int64
}

// Info is what Sniff found.
type Info struct {
	Kind Kind
	Size int64
	// Field is the curve or field the file is over, where it says or its
	// format implies: "BLS12-381", "BN254", or the prime.
	Field string
	// Version is the format version the file declares, where it has one.
	Version int
	// Counts are the file's main sizes, in the order they are shown.
	Counts []Count
	// Points are the points in each section of a parameter file or .vk.
	Points []Count
	// Problems say why a file of its kind cannot be used as it is: a
	// header that does not read, another curve or protocol.
	Problems []string
	// Head is the file's first bytes (at most HeadSize), which say what a
	// file of no known kind is to a person who knows its magic number.
	Head []byte
	// Shape describes JSON of no known kind: "an object with keys "a",
	// "b"", "an array of 2 numbers".
	Shape string
}

// HeadSize is how many first bytes Info.Head keeps.
const HeadSize = 16

// Count returns the count named name.
func (i Info) Count(name string) (int64, bool) {
	for _, c := range i.Counts {
		if c.Name == name {
			return c.N, true
		}
	}
	return 0, false
}

// String describes the file in a line: its kind, counts and field, e.g.
// "a circom witness (.wtns) with 1285 values over BLS12-381".
func (i Info) String() string {
	s := i.Kind.String()
	var counts []string
	for _, c := range i.Counts {
		counts = append(counts, c.String())
	}
	if len(counts) > 0 {
		s += " with " + strings.Join(counts, ", ")
	}
	if i.Field != "" {
		s += " over " + i.Field
	}
	switch i.Kind {
	case Unknown:
		s += fmt.Sprintf(" (%d bytes; first bytes % x", i.Size, i.Head)
		if i.Size > int64(len(i.Head)) {
			s += " …"
		}
		s += ")"
	case JSON:
		s += " (" + i.Shape + ")"
	}
	if len(i.Problems) > 0 {
		s += " (" + strings.Join(i.Problems, "; ") + ")"
	}
	return s
}

// Key is the count's name for programs, snake_case: "aux_variables",
// "inputs_with_one", "terms_in_a".
func (c Count) Key() string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(c.Name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			gap = false
			continue
		}
		gap = true
	}
	return b.String()
}

// String writes the count as a phrase: "1285 values", "1 term in A".
func (c Count) String() string {
	name := c.Name
	if c.N == 1 {
		// the noun ends the name or comes before " in " or " ("
		end := len(name)
		for _, sep := range []string{" in ", " ("} {
			if k := strings.Index(name, sep); k >= 0 && k < end {
				end = k
			}
		}
		if strings.HasSuffix(name[:end], "s") {
			name = name[:end-1] + name[end:]
		}
	}
	return fmt.Sprintf("%d %s", c.N, name)
}

// SniffFile sniffs the file at path; it fails only when the file cannot be
// read (missing, not a regular file).
func SniffFile(path string) (Info, error) {
	var info Info
	err := fileio.WithMapped(path, func(data []byte) error {
		info = Sniff(data)
		return nil
	})
	if err != nil {
		return Info{}, err
	}
	return info, nil
}

// maxJSON bounds the JSON parsed to tell its shape: far beyond a verifying
// key of a million public inputs (~200 bytes each).
const maxJSON = 512 << 20

// Sniff tells what data is.
func Sniff(data []byte) Info {
	info := Info{Size: int64(len(data)), Head: bytes.Clone(data[:min(len(data), HeadSize)])}
	if len(data) == 0 {
		info.Kind = Empty
		return info
	}
	if len(data) >= 8 {
		switch string(data[:4]) {
		case "r1cs":
			circomR1CS(&info, data)
			return info
		case "wtns":
			circomWitness(&info, data)
			return info
		case "zkey":
			info.Kind, info.Version = SnarkjsZkey, int(le32(data[4:]))
			return info
		case "ptau":
			info.Kind, info.Version = Ptau, int(le32(data[4:]))
			return info
		}
	}
	if bytes.HasPrefix(data, []byte("CUZKR1CS")) {
		cuzkCircuit(&info, data)
		return info
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		sniffJSON(&info, data)
		if info.Kind != Unknown {
			return info
		}
	}
	l, err := params.DecodeLayout(data)
	if err == nil {
		info.Kind, info.Field = Params, "BLS12-381"
		if l.VerifyingKeyOnly {
			info.Kind = VerifyingKey
		}
		info.Counts = []Count{{"public inputs", int64(l.IC) - 1}}
		info.Points = []Count{{"ic", int64(l.IC)}}
		if !l.VerifyingKeyOnly {
			info.Counts = append(info.Counts, Count{"aux variables", int64(l.L)}, Count{"rows in the domain", int64(l.H) + 1})
			info.Points = append(info.Points, Count{"h", int64(l.H)}, Count{"l", int64(l.L)}, Count{"a", int64(l.A)},
				Count{"b_g1", int64(l.BG1)}, Count{"b_g2", int64(l.BG2)})
		}
		return info
	}
	if n, err := params.CountProofs(data); err == nil {
		info.Kind, info.Field = Proofs, "BLS12-381"
		info.Counts = []Count{{"proofs", int64(n)}}
		return info
	}
	// The verifying key's flags are right but the counts do not add up: a
	// parameter file cut short (an interrupted download) or extended. A
	// file shorter than a .vk with no public input is not taken for one.
	if len(data) >= minVK && (errors.Is(err, params.ErrTruncated) || errors.Is(err, params.ErrTrailingData)) {
		info.Kind, info.Field = Params, "BLS12-381"
		info.Problems = []string{"truncated or corrupt: " + strings.TrimPrefix(err.Error(), "params: ")}
	}
	return info
}

// minVK is the size of a .vk with an empty ic: six points and a count.
const minVK = 3*params.G1Uncompressed + 3*params.G2Uncompressed + 4

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// bn254 is BN254's scalar field, circom's default prime.
var bn254, _ = new(big.Int).SetString("21888242871839275222246405745257275088548364400416034343698204186575808495617", 10)

// fieldOf names a circom prime and says whether cuzk proves over it.
func fieldOf(p *big.Int) (name string, ours bool) {
	switch {
	case p.Cmp(fr.Modulus()) == 0:
		return "BLS12-381", true
	case p.Cmp(bn254) == 0:
		return "BN254", false
	}
	return "prime " + p.String(), false
}

// otherField is the problem of a circom file over another field.
func otherField(name string) string {
	return "over " + name + "; cuzk proves over BLS12-381 (compile with circom --prime bls12381)"
}

// circomField records a circom file's field and version, and a field
// other than BLS12-381's scalar field as a problem.
func circomField(info *Info, prime *big.Int, version uint32) {
	name, ours := fieldOf(prime)
	info.Field, info.Version = name, int(version)
	if !ours {
		info.Problems = append(info.Problems, otherField(name))
	}
}

func circomR1CS(info *Info, data []byte) {
	info.Kind = CircomR1CS
	h, err := r1cs.DecodeCircomHeader(data)
	if err != nil {
		info.Problems = append(info.Problems, "header: "+strings.TrimPrefix(err.Error(), "r1cs: "))
		return
	}
	circomField(info, h.Prime, h.Version)
	info.Counts = []Count{{"constraints", int64(h.Constraints)}, {"wires", int64(h.Wires)},
		{"public outputs", int64(h.PublicOutputs)}, {"public inputs", int64(h.PublicInputs)},
		{"private inputs", int64(h.PrivateInputs)}, {"labels", int64(h.Labels)}}
}

func circomWitness(info *Info, data []byte) {
	info.Kind = CircomWitness
	h, err := r1cs.DecodeCircomWitnessHeader(data)
	if err != nil {
		info.Problems = append(info.Problems, "header: "+strings.TrimPrefix(err.Error(), "r1cs: "))
		return
	}
	circomField(info, h.Prime, h.Version)
	info.Counts = []Count{{"values", int64(h.Values)}}
}

func cuzkCircuit(info *Info, data []byte) {
	info.Kind, info.Field = CuzkCircuit, "BLS12-381"
	h, err := r1cs.DecodeHeader(data)
	info.Version = int(h.Version)
	if err != nil {
		info.Problems = append(info.Problems, "header: "+strings.TrimPrefix(err.Error(), "r1cs: malformed circuit file: "))
		return
	}
	info.Counts = []Count{{"constraints", int64(h.NumConstraints)}, {"inputs (with ONE)", int64(h.NumInputs)},
		{"aux variables", int64(h.NumAux)}, {"coefficients", int64(h.NumCoeffs)},
		{"terms in A", int64(h.NNZ[0])}, {"terms in B", int64(h.NNZ[1])}, {"terms in C", int64(h.NNZ[2])}}
}

// snarkjs names its curves after ffjavascript's.
var snarkjsCurves = map[string]string{snarkjs.Curve: "BLS12-381", "bn128": "BN254", "bn254": "BN254"}

// curveOf names a snarkjs curve and notes a curve or protocol cuzk does
// not verify.
func curveOf(info *Info, protocol, curve string) {
	info.Field = curve
	if name, ok := snarkjsCurves[curve]; ok {
		info.Field = name
	}
	if protocol != snarkjs.Protocol {
		info.Problems = append(info.Problems, fmt.Sprintf("protocol %q; cuzk verifies %q", protocol, snarkjs.Protocol))
	}
	if curve != snarkjs.Curve {
		info.Problems = append(info.Problems, fmt.Sprintf("curve %q; cuzk verifies %q", curve, snarkjs.Curve))
	}
}

func sniffJSON(info *Info, data []byte) {
	if len(data) > maxJSON {
		return
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return // not JSON: the other kinds' tests go on
	}
	info.Kind, info.Shape = JSON, shapeOf(v)
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) == nil {
		var head struct {
			Protocol string `json:"protocol"`
			Curve    string `json:"curve"`
			NPublic  *int64 `json:"nPublic"`
		}
		if json.Unmarshal(data, &head) != nil {
			return
		}
		_, piA := obj["pi_a"]
		switch {
		case piA || head.Protocol != "" && head.NPublic == nil:
			info.Kind, info.Shape = SnarkjsProof, ""
		case head.NPublic != nil:
			info.Shape = ""
			info.Kind = SnarkjsVerifyingKey
			info.Counts = []Count{{"public inputs", *head.NPublic}}
		default:
			return
		}
		curveOf(info, head.Protocol, head.Curve)
		return
	}
	var arr []string
	if json.Unmarshal(data, &arr) != nil {
		return
	}
	for _, s := range arr {
		if _, ok := new(big.Int).SetString(s, 10); !ok {
			return
		}
	}
	info.Kind, info.Shape = SnarkjsPublic, ""
	info.Counts = []Count{{"public inputs", int64(len(arr))}}
}

// shapeOf describes a JSON value: "an object with keys "a", "b"", "an
// array of 2 numbers", "a string".
func shapeOf(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return "an empty object"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, strconv.Quote(k))
		}
		sort.Strings(keys)
		if len(keys) > 6 {
			keys = append(keys[:6], "…")
		}
		return "an object with keys " + strings.Join(keys, ", ")
	case []any:
		if len(x) == 0 {
			return "an empty array"
		}
		elem := ""
		for _, e := range x {
			n := noun(e)
			if elem != "" && n != elem {
				return fmt.Sprintf("an array of %d values of mixed types", len(x))
			}
			elem = n
		}
		if len(x) == 1 {
			return "an array of one " + strings.TrimSuffix(elem, "s")
		}
		return fmt.Sprintf("an array of %d %s", len(x), elem)
	}
	return "a single " + strings.TrimSuffix(noun(v), "s")
}

// noun names a JSON value's type in the plural: "numbers", "objects".
func noun(v any) string {
	switch v.(type) {
	case map[string]any:
		return "objects"
	case []any:
		return "arrays"
	case string:
		return "strings"
	case float64:
		return "numbers"
	case bool:
		return "booleans"
	}
	return "nulls"
}
