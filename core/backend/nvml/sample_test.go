package nvml

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The sampler's means are the readings' averages per GPU, over the
// samples taken until Stop; an error ends the sampling and is returned
// with the means of the samples before it.
func TestSamplerMeans(t *testing.T) {
	readings := [][]float64{{100, 0}, {50, 20}, {90, 40}}
	k := 0
	got := make(chan struct{})
	s := startSampler(time.Millisecond, func() ([]float64, error) {
		if k == len(readings) {
			close(got)
			return nil, errors.New("gone")
		}
		k++
		return readings[k-1], nil
	})
	<-got
	mean, n, err := s.Stop()
	require.EqualError(t, err, "gone")
	require.Equal(t, 3, n)
	require.InDeltaSlice(t, []float64{80, 20}, mean, 1e-9)

	s = startSampler(time.Hour, func() ([]float64, error) { return []float64{1}, nil })
	mean, n, err = s.Stop()
	require.NoError(t, err)
	require.Zero(t, n, "a window shorter than the period has no sample")
	require.Nil(t, mean)
}
