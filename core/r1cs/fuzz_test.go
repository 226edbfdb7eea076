package r1cs_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// FuzzDecoders: the cuzk format and circom's r1cs/wtns readers return an
// error, never panic, on any input; `go test -fuzz=FuzzDecoders ./core/r1cs/`
// explores beyond the seeds.
func FuzzDecoders(f *testing.F) {
	cs, w := synthetic.Random(rand.New(rand.NewPCG(3, 3)), synthetic.ShapeDense, 12)
	var buf bytes.Buffer
	if _, err := cs.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(cs.EncodeCircomR1CS())
	f.Add(r1cs.EncodeCircomWitness(w))
	f.Add([]byte("r1cs\x01\x00\x00\x00\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, err := r1cs.Decode(data); err == nil {
			_ = got.Rows()
		}
		if got, err := r1cs.DecodeCircomR1CS(data); err == nil {
			_ = got.Rows()
		}
		_, _ = cs.DecodeCircomWitness(data)
	})
}
