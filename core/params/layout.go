package params

import (
	"fmt"

	"github.com/cuzk/cuzk/core/internal/fileio"
)

// Layout is what a parameter file or a .vk declares: the number of points
// in each section, read from the count fields and checked against the
// file's size without decoding a point (a 9 GiB file is read at seven
// places).
type Layout struct {
	IC, H, L, A, BG1, BG2 int
	// VerifyingKeyOnly: the file ends after ic (a .vk).
	VerifyingKeyOnly bool
}

// DecodeLayout reads the layout of a parameter file or .vk held in data.
// Besides the sizes it checks the flag bits of the verifying key's points
// (uncompressed, finite or a well-formed infinity), so that another file
// whose size happens to add up is not taken for one.
func DecodeLayout(data []byte) (Layout, error) {
	r := &reader{data: data}
	sizes := []int{G1Uncompressed, G1Uncompressed, G2Uncompressed, G2Uncompressed, G1Uncompressed, G2Uncompressed}
	names := []string{"alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2"}
	for i, size := range sizes {
		b, err := r.take(names[i], size)
		if err != nil {
			return Layout{}, err
		}
		if _, err := infinity(b, size); err != nil {
			return Layout{}, fmt.Errorf("params: %s: %w", names[i], err)
		}
	}
	var l Layout
	sections := []struct {
		name string
		size int
		n    *int
	}{{"ic", G1Uncompressed, &l.IC}, {"h", G1Uncompressed, &l.H}, {"l", G1Uncompressed, &l.L},
		{"a", G1Uncompressed, &l.A}, {"b_g1", G1Uncompressed, &l.BG1}, {"b_g2", G2Uncompressed, &l.BG2}}
	for i, s := range sections {
		n, err := r.count(s.name, s.size)
		if err != nil {
			return Layout{}, err
		}
		*s.n = n
		r.off += n * s.size
		if i == 0 && r.off == len(data) {
			l.VerifyingKeyOnly = true
			return l, nil
		}
	}
	if left := len(data) - r.off; left != 0 {
		return Layout{}, fmt.Errorf("params: %w: %d bytes after b_g2", ErrTrailingData, left)
	}
	return l, nil
}

// Points returns the number of points the layout holds, the verifying
// key's six included.
func (l Layout) Points() int64 {
	return 6 + int64(l.IC) + int64(l.H) + int64(l.L) + int64(l.A) + int64(l.BG1) + int64(l.BG2)
}

// ReadLayout reads the layout of the parameter file or .vk at path, from
// its count fields only (the file is mapped; no point is decoded).
func ReadLayout(path string) (Layout, error) {
	var l Layout
	err := fileio.Decode("params", path, func(data []byte) (err error) {
		return fileio.Guard(data, func() error { l, err = DecodeLayout(data); return err })
	})
	return l, err
}
