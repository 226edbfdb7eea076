package service

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/internal/fakecuda"
)

// gpuService is a service proving on the fake CUDA library's one device,
// with fixture's circuit registered.
func gpuService(t *testing.T) (*Service, string) {
	lib := fakecuda.Build(t)
	dir, _, _ := fixture(t)
	s := New(nil, config.CUDASearch{})
	t.Cleanup(s.Close)
	s.SetDefaultRecordDir(t.TempDir())
	require.NoError(t, s.Configure(fmt.Sprintf("[gpus]\nrequired = true\ncuda_lib = %q\n", lib)))
	require.NoError(t, s.RegisterCircuit("c", filepath.Join(dir, "c.r1cs")))
	return s, dir
}

// deviceHealthy reports the fake device's health in the status.
func deviceHealthy(t *testing.T, s *Service) bool {
	st, err := s.Status()
	require.NoError(t, err)
	require.Len(t, st.Engine.Devices, 1)
	require.Equal(t, "cuda:0", st.Engine.Devices[0].Name)
	return st.Engine.Devices[0].Healthy
}

// A CUDA failure is a device error (CUZK_ERR_DEVICE) naming the CUDA
// error, never a bad file or a bad argument: out of memory while a valid
// parameter file's points go up to the device for their subgroup check,
// or while a proof runs, leaves the device in service; a sticky error
// (an illegal address) in the subgroup check of a load takes it out of
// service, as one in a proof does.
func TestCUDAFailuresAreDeviceErrors(t *testing.T) {
	paramsOf := func(dir string) string { return filepath.Join(dir, "c.params") }
	_, ws := fixtureSystem(t)

	t.Run("none", func(t *testing.T) {
		s, dir := gpuService(t)
		require.NoError(t, s.LoadParams("c", paramsOf(dir), false), "the fake device checks and takes the points")
		require.True(t, deviceHealthy(t, s))
	})
	t.Run("out of memory in a load", func(t *testing.T) {
		s, dir := gpuService(t)
		t.Setenv(fakecuda.FailEnv, "g1_alloc=1002,g2_alloc=1002,g1_upload=1002,g2_upload=1002,stream_new=1002")
		err := s.LoadParams("c", paramsOf(dir), false)
		require.Equal(t, DeviceFailed, CodeOf(err), "%v", err)
		require.ErrorContains(t, err, "cudaErrorMemoryAllocation")
		require.True(t, deviceHealthy(t, s))
		t.Setenv(fakecuda.FailEnv, "")
		require.NoError(t, s.LoadParams("c", paramsOf(dir), false), "the file was fine")
	})
	t.Run("out of memory in a proof", func(t *testing.T) {
		s, dir := gpuService(t)
		require.NoError(t, s.LoadParams("c", paramsOf(dir), false))
		t.Setenv(fakecuda.FailEnv, "*=1002")
		_, err := s.Prove(Request{CircuitID: "c", Witnesses: ws})
		require.Equal(t, DeviceFailed, CodeOf(err), "%v", err)
		require.ErrorContains(t, err, "cudaErrorMemoryAllocation")
		t.Setenv(fakecuda.FailEnv, "")
		require.True(t, deviceHealthy(t, s))
	})
	t.Run("sticky in a load's subgroup check", func(t *testing.T) {
		s, dir := gpuService(t)
		t.Setenv(fakecuda.FailEnv, "g1_check_subgroup=1700,g2_check_subgroup=1700")
		err := s.LoadParams("c", paramsOf(dir), false)
		require.Equal(t, DeviceFailed, CodeOf(err), "%v", err)
		require.ErrorContains(t, err, "cudaErrorIllegalAddress")
		require.False(t, deviceHealthy(t, s), "out of service")
		t.Setenv(fakecuda.FailEnv, "")
		// The next load checks on the CPU; a proof finds no device.
		require.NoError(t, s.LoadParams("c", paramsOf(dir), false))
		_, err = s.Prove(Request{CircuitID: "c", Witnesses: ws})
		require.Equal(t, DeviceFailed, CodeOf(err), "%v", err)
	})
	t.Run("sticky in a proof", func(t *testing.T) {
		s, dir := gpuService(t)
		require.NoError(t, s.LoadParams("c", paramsOf(dir), false))
		t.Setenv(fakecuda.FailEnv, "*=1700")
		_, err := s.Prove(Request{CircuitID: "c", Witnesses: ws})
		require.Equal(t, DeviceFailed, CodeOf(err), "%v", err)
		require.ErrorContains(t, err, "cudaErrorIllegalAddress")
		t.Setenv(fakecuda.FailEnv, "")
		require.False(t, deviceHealthy(t, s))
	})
}
