package params

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/internal/filetest"
)

// bigKeyFile writes a key spanning many pages (the same valid point
// repeated), so that truncating the file leaves mapped pages past its end.
func bigKeyFile(t *testing.T) string {
	pk := randomKey(rand.New(rand.NewPCG(21, 22)))
	for _, s := range []*[]bls.G1Affine{&pk.H, &pk.L, &pk.A} {
		grown := make([]bls.G1Affine, 2000)
		for i := range grown {
			grown[i] = (*s)[i%len(*s)]
		}
		*s = grown
	}
	path := filepath.Join(t.TempDir(), "big.params")
	require.NoError(t, pk.WriteFile(path))
	return path
}

// TestTruncatedWhileLoading truncates the file underneath a load, after the
// decoder has read h and before it reads l: the pages of l, a and the rest
// are gone from the mapping. Unguarded, the next read raised SIGBUS and
// killed the process; now the load fails with an error naming the file.
func TestTruncatedWhileLoading(t *testing.T) {
	for _, name := range []string{"checked", "skip subgroup", "record"} {
		t.Run(name, func(t *testing.T) {
			path := bigKeyFile(t)
			t.Cleanup(func() { sectionDecoded = nil })
			sectionDecoded = func(section string) {
				if section == "h" {
					require.NoError(t, os.Truncate(path, 4096))
				}
			}
			opt := Options{SkipSubgroupCheck: name == "skip subgroup"}
			if name == "record" {
				opt.Record = OpenRecord(t.TempDir(), nil)
			}
			_, err := ReadProvingKey(path, opt)
			require.ErrorIs(t, err, fileio.ErrShrank)
			require.Contains(t, err.Error(), path)
		})
	}
}

// TestTruncatedConcurrently shrinks the file from another goroutine at
// varying moments of a load: whatever the moment, the load returns (a key
// read before the cut, or an error), never crashes.
func TestTruncatedConcurrently(t *testing.T) {
	for delay := time.Duration(0); delay < 4*time.Millisecond; delay += 500 * time.Microsecond {
		path := bigKeyFile(t)
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(delay)
			os.Truncate(path, 5000)
		}()
		_, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true, Record: OpenRecord(t.TempDir(), nil)})
		<-done
		if err != nil {
			require.True(t, errors.Is(err, fileio.ErrShrank) || errors.Is(err, ErrTruncated), "%v", err)
		}
	}
}

// TestContentKeyOfShrunkMapping: a fault in one of ContentKeyOf's hashing
// goroutines reaches the caller's guard as an error.
func TestContentKeyOfShrunkMapping(t *testing.T) {
	path := bigKeyFile(t)
	err := fileio.WithMapped(path, func(data []byte) error {
		require.NoError(t, os.Truncate(path, 0))
		ContentKeyOf(data, 4)
		return nil
	})
	require.ErrorIs(t, err, fileio.ErrShrank)
}

// TestNonRegularRefused: a FIFO, a directory and a device are refused at
// once by every reader of parameter files.
func TestNonRegularRefused(t *testing.T) {
	for _, path := range filetest.NonRegular(t) {
		for name, read := range map[string]func() error{
			"proving key":   func() error { _, err := ReadProvingKey(path, Options{}); return err },
			"verifying key": func() error { _, err := ReadVerifyingKey(path, Options{}); return err },
			"record add":    func() error { return OpenRecord(t.TempDir(), nil).AddFile(path, ValidationSetup, 0) },
		} {
			err := filetest.Promptly(t, name+" of "+path, read)
			require.ErrorIs(t, err, fileio.ErrNotRegular, "%s of %s", name, path)
		}
	}
}
