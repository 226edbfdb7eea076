package nvml

import (
	"fmt"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Utilisation samples each GPU's utilisation (the share of the last
// sample period in which a kernel ran, as NVML reports it) every period
// until Stop, which returns each GPU's mean over the samples taken: the
// GPU's busy share of a window, such as the proofs of a bench. Without
// NVML it returns backend.ErrNoNVML.
func Utilisation(period time.Duration) (*Sampler, error) {
	devs, shutdown, err := open()
	if err != nil {
		if shutdown != nil {
			shutdown()
		}
		return nil, err
	}
	read := func() ([]float64, error) {
		out := make([]float64, len(devs))
		for i, d := range devs {
			u, ret := d.GetUtilizationRates()
			if ret != nvml.SUCCESS {
				return nil, fmt.Errorf("nvml: device %d utilisation: %s", i, nvml.ErrorString(ret))
			}
			out[i] = float64(u.Gpu)
		}
		return out, nil
	}
	s := startSampler(period, read)
	s.done = shutdown
	return s, nil
}

// Sampler is a running Utilisation.
type Sampler struct {
	stop chan struct{}
	wg   sync.WaitGroup
	done func()
	sum  []float64
	n    int
	err  error
}

// startSampler calls read every period on a goroutine of its own, adding
// up what it returns; the first error ends the sampling.
func startSampler(period time.Duration, read func() ([]float64, error)) *Sampler {
	s := &Sampler{stop: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
			v, err := read()
			if err != nil {
				s.err = err
				return
			}
			if s.sum == nil {
				s.sum = make([]float64, len(v))
			}
			for i := range v {
				if i < len(s.sum) {
					s.sum[i] += v[i]
				}
			}
			s.n++
		}
	}()
	return s
}

// Stop ends the sampling and returns each GPU's mean utilisation in
// percent and the number of samples (none: a window shorter than the
// period, or an error, returned too).
func (s *Sampler) Stop() (mean []float64, samples int, err error) {
	close(s.stop)
	s.wg.Wait()
	if s.done != nil {
		s.done()
	}
	if s.n == 0 {
		return nil, 0, s.err
	}
	mean = make([]float64, len(s.sum))
	for i, v := range s.sum {
		mean[i] = v / float64(s.n)
	}
	return mean, s.n, s.err
}
