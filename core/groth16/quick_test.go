package groth16

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/cuzk/cuzk/core/r1cs"
)

func TestQuick(t *testing.T) {
	b := r1cs.NewBuilder()
	var x, y fr.Element
	x.SetUint64(3)
	y.SetUint64(27)
	out := b.Input(y)
	xv := b.Aux(x)
	var x2 fr.Element
	x2.Mul(&x, &x)
	sq := b.Aux(x2)
	one := fr.One()
	b.Enforce(r1cs.LC{{Var: xv, Coeff: one}}, r1cs.LC{{Var: xv, Coeff: one}}, r1cs.LC{{Var: sq, Coeff: one}})
	b.Enforce(r1cs.LC{{Var: sq, Coeff: one}}, r1cs.LC{{Var: xv, Coeff: one}}, r1cs.LC{{Var: out, Coeff: one}})
	cs, w := b.Build()
	pk, err := Setup(cs, 1)
	if err != nil {
		t.Fatal(err)
	}
	proof, _, err := Prove(pk, cs, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(&pk.VerifyingKey, proof, w.Inputs[1:]); err != nil {
		t.Fatal(err)
	}
	var bad fr.Element
	bad.SetUint64(28)
	if err := Verify(&pk.VerifyingKey, proof, []fr.Element{bad}); err == nil {
		t.Fatal("accepted wrong input")
	}
}
