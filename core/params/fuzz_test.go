package params

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// FuzzDecode: any byte string decodes to a key or an error, never a panic;
// `go test -fuzz=FuzzDecode ./core/params/` explores beyond the seeds.
func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	pk := randomKey(rand.New(rand.NewPCG(9, 9)))
	if _, err := pk.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:200])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if pk, err := DecodeProvingKey(data, Options{SkipSubgroupCheck: true}); err == nil && pk == nil {
			t.Fatal("nil key without an error")
		}
		_, _ = DecodeVerifyingKey(data, Options{SkipSubgroupCheck: true})
		_, _ = DecodeProofs(data)
	})
}
