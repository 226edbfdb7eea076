package service

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/internal/logtest"
)

// TestProgressLogged: a host of the C library sees a long parameter load
// and a long proof advance in its log (here with no wait between lines).
func TestProgressLogged(t *testing.T) {
	every := progressEvery
	progressEvery = 0
	t.Cleanup(func() { progressEvery = every })
	dir, _, ws := fixture(t)
	var logged logtest.Buffer
	s := New(slog.New(slog.NewTextHandler(&logged, nil)), config.CUDASearch{})
	defer s.Close()
	require.NoError(t, s.Configure("[srs]\nvalidation_record_dir = '"+filepath.Join(dir, "rec")+"'\n"))
	require.NoError(t, s.RegisterCircuit("c", filepath.Join(dir, "c.r1cs")))
	require.NoError(t, s.LoadParams("c", filepath.Join(dir, "c.params"), false))
	_, err := s.Prove(Request{CircuitID: "c", Witnesses: ws})
	require.NoError(t, err)
	out := logged.String()
	require.Regexp(t, `msg="cuzk: loading parameters" path=\S+c.params stage=subgroup done=\d+ total=\d+ unit=points`, out)
	require.Regexp(t, `msg="cuzk: proving" circuit=c stage=prove done=1 total=2 unit=partitions`, out)
	require.Regexp(t, `msg="cuzk: proving" circuit=c stage=prove done=2 total=2 unit=partitions`, out)
}
