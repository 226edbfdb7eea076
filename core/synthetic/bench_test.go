package synthetic

import (
	"fmt"
	"testing"
)

// BenchmarkGenerate times the PoRep-shaped circuit's generation (the
// partition benches' set-up): go test -bench Generate -run '^$' ./core/synthetic/
func BenchmarkGenerate(b *testing.B) {
	for _, k := range []int{20, 22} {
		b.Run(fmt.Sprintf("2^%d", k), func(b *testing.B) {
			for range b.N {
				if _, _, err := Generate(Spec{Constraints: 1 << k, DenseFraction: 0.03, Seed: 3}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
