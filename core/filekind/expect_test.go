package filekind_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/filekind"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// TestExpectExplains: a reader's error on a file of another kind says what
// the file is (its first bytes when no kind is known, its shape for JSON)
// and what the reader takes, and unwraps to the reader's error; on a file
// of the kind it takes, the reader's error naming the file; an access
// error as it is.
func TestExpectExplains(t *testing.T) {
	dir := t.TempDir()
	path := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	_, w, err := synthetic.Generate(synthetic.Spec{Constraints: 64, DenseFraction: 0.5, Seed: 1})
	require.NoError(t, err)
	random := path("random.bin", []byte{0x3f, 0xa2, 0x9c, 0x01, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	wtns := path("w.wtns", r1cs.EncodeCircomWitness(w))
	obj := path("obj.json", []byte(`{"zeta": 1, "alpha": [2]}`))
	strs := path("strs.json", []byte(`["a", "b", "c"]`))
	short := path("short.wtns", r1cs.EncodeCircomWitness(w)[:60])
	readerErr := errors.New("the reader's own error")
	witness := filekind.Expect{Name: "--wtns", Kinds: []filekind.Kind{filekind.CircomWitness}}
	params := filekind.Expect{Name: "cuzk_load_params", Kinds: []filekind.Kind{filekind.Params}}

	for _, c := range []struct {
		in   filekind.Expect
		path string
		want string
	}{
		{witness, random, "--wtns: " + random + " is a file of no kind cuzk knows (18 bytes; first bytes 3f a2 9c 01 00 01 02 03 04 05 06 07 08 09 0a 0b …); --wtns takes a circom witness (.wtns)"},
		{params, wtns, "cuzk_load_params: " + wtns + " is a circom witness (.wtns) with " + strconv.Itoa(len(w.Inputs)+len(w.Aux)) + " values over BLS12-381; cuzk_load_params takes a parameter file (bellperson .params)"},
		{params, obj, "cuzk_load_params: " + obj + ` is JSON of no kind cuzk knows (an object with keys "alpha", "zeta"); cuzk_load_params takes a parameter file (bellperson .params)`},
		{witness, strs, "is JSON of no kind cuzk knows (an array of 3 strings)"},
	} {
		err := c.in.Explain(c.path, readerErr)
		require.Contains(t, err.Error(), c.want)
		var wk *filekind.WrongKind
		require.ErrorAs(t, err, &wk)
		require.ErrorIs(t, err, readerErr)
	}
	// the kind it takes: the reader's error, naming the reader and the file
	err = witness.Explain(short, readerErr)
	require.EqualError(t, err, "--wtns: "+short+": the reader's own error")
	require.ErrorIs(t, err, readerErr)
	var wk *filekind.WrongKind
	require.False(t, errors.As(err, &wk))
	// an access error as it is
	_, openErr := os.Open(filepath.Join(dir, "none"))
	require.Equal(t, openErr, witness.Explain(filepath.Join(dir, "none"), openErr))
	// a configuration takes what Sniff does not know
	cfg := filekind.Expect{Name: "--config", Want: "a configuration (TOML or JSON)"}
	require.True(t, cfg.Takes(filekind.Unknown) && cfg.Takes(filekind.JSON) && !cfg.Takes(filekind.Params))
	require.Contains(t, cfg.Explain(wtns, readerErr).Error(), "--config takes a configuration (TOML or JSON)")
}

// TestJSONShapes: JSON of no known kind is described by its shape.
func TestJSONShapes(t *testing.T) {
	for data, shape := range map[string]string{
		`{}`:                  "an empty object",
		`[1]`:                 "an array of one number",
		`[1, "a"]`:            "an array of 2 values of mixed types",
		`[{"a":1},{"b":2}]`:   "an array of 2 objects",
		`{"b":1,"a":2,"c":3}`: `an object with keys "a", "b", "c"`,
	} {
		info := filekind.Sniff([]byte(data))
		require.Equal(t, filekind.JSON, info.Kind, data)
		require.Equal(t, shape, info.Shape, data)
	}
}
