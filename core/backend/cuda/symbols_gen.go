// Code generated from cuda/cuzk_cuda.h by core/backend/cuda/abigen_test.go (make generate); DO NOT EDIT.

package cuda

import "unsafe"

// symbols are libcuzk_cuda.so's entry points, found with dlsym: the field
// of cuzk_cuda_x_y is xY. The bench entry points are nil in a library
// built without them.
type symbols struct {
	abiVersion              unsafe.Pointer // cuzk_cuda_abi_version
	deviceCount             unsafe.Pointer // cuzk_cuda_device_count
	deviceInfo              unsafe.Pointer // cuzk_cuda_device_info
	ntt                     unsafe.Pointer // cuzk_cuda_ntt
	nttH                    unsafe.Pointer // cuzk_cuda_ntt_h
	hMsmG1                  unsafe.Pointer // cuzk_cuda_h_msm_g1
	abcUpload               unsafe.Pointer // cuzk_cuda_abc_upload
	abcAdd                  unsafe.Pointer // cuzk_cuda_abc_add
	hMsmG1Abc               unsafe.Pointer // cuzk_cuda_h_msm_g1_abc
	abcFree                 unsafe.Pointer // cuzk_cuda_abc_free
	benchForceBranchConvert unsafe.Pointer // cuzk_cuda_bench_force_branch_convert
	benchRefusePassScratch  unsafe.Pointer // cuzk_cuda_bench_refuse_pass_scratch
	benchNtt                unsafe.Pointer // cuzk_cuda_bench_ntt
	g1Upload                unsafe.Pointer // cuzk_cuda_g1_upload
	g1Free                  unsafe.Pointer // cuzk_cuda_g1_free
	g1Alloc                 unsafe.Pointer // cuzk_cuda_g1_alloc
	g1Put                   unsafe.Pointer // cuzk_cuda_g1_put
	msmG1                   unsafe.Pointer // cuzk_cuda_msm_g1
	benchMsmG1              unsafe.Pointer // cuzk_cuda_bench_msm_g1
	g2Upload                unsafe.Pointer // cuzk_cuda_g2_upload
	g2Free                  unsafe.Pointer // cuzk_cuda_g2_free
	g2Alloc                 unsafe.Pointer // cuzk_cuda_g2_alloc
	g2Put                   unsafe.Pointer // cuzk_cuda_g2_put
	msmG2                   unsafe.Pointer // cuzk_cuda_msm_g2
	benchMsmG2              unsafe.Pointer // cuzk_cuda_bench_msm_g2
	g1CheckSubgroup         unsafe.Pointer // cuzk_cuda_g1_check_subgroup
	g2CheckSubgroup         unsafe.Pointer // cuzk_cuda_g2_check_subgroup
	scalarsUpload           unsafe.Pointer // cuzk_cuda_scalars_upload
	scalarsSelect           unsafe.Pointer // cuzk_cuda_scalars_select
	scalarsDownload         unsafe.Pointer // cuzk_cuda_scalars_download
	scalarsFree             unsafe.Pointer // cuzk_cuda_scalars_free
	setOptions              unsafe.Pointer // cuzk_cuda_set_options
	memory                  unsafe.Pointer // cuzk_cuda_memory
	streamNew               unsafe.Pointer // cuzk_cuda_stream_new
	streamPut               unsafe.Pointer // cuzk_cuda_stream_put
	streamMsm               unsafe.Pointer // cuzk_cuda_stream_msm
	streamFree              unsafe.Pointer // cuzk_cuda_stream_free
	streamPutFile           unsafe.Pointer // cuzk_cuda_stream_put_file
	streamWait              unsafe.Pointer // cuzk_cuda_stream_wait
	streamTakeStats         unsafe.Pointer // cuzk_cuda_stream_take_stats
	hAbcScalars             unsafe.Pointer // cuzk_cuda_h_abc_scalars
	hAbcLeanScalars         unsafe.Pointer // cuzk_cuda_h_abc_lean_scalars
	hostRegister            unsafe.Pointer // cuzk_cuda_host_register
	hostUnregister          unsafe.Pointer // cuzk_cuda_host_unregister
	hostRegisterReadOnly    unsafe.Pointer // cuzk_cuda_host_register_read_only
	msmG1Resident           unsafe.Pointer // cuzk_cuda_msm_g1_resident
	msmG2Resident           unsafe.Pointer // cuzk_cuda_msm_g2_resident
}

// bind finds every entry point with sym: an error for a missing one, nil
// left for a missing bench entry point.
func (s *symbols) bind(sym func(name string) (unsafe.Pointer, error)) error {
	var err error
	if s.abiVersion, err = sym("cuzk_cuda_abi_version"); err != nil {
		return err
	}
	if s.deviceCount, err = sym("cuzk_cuda_device_count"); err != nil {
		return err
	}
	if s.deviceInfo, err = sym("cuzk_cuda_device_info"); err != nil {
		return err
	}
	if s.ntt, err = sym("cuzk_cuda_ntt"); err != nil {
		return err
	}
	if s.nttH, err = sym("cuzk_cuda_ntt_h"); err != nil {
		return err
	}
	if s.hMsmG1, err = sym("cuzk_cuda_h_msm_g1"); err != nil {
		return err
	}
	if s.abcUpload, err = sym("cuzk_cuda_abc_upload"); err != nil {
		return err
	}
	if s.abcAdd, err = sym("cuzk_cuda_abc_add"); err != nil {
		return err
	}
	if s.hMsmG1Abc, err = sym("cuzk_cuda_h_msm_g1_abc"); err != nil {
		return err
	}
	if s.abcFree, err = sym("cuzk_cuda_abc_free"); err != nil {
		return err
	}
	s.benchForceBranchConvert, _ = sym("cuzk_cuda_bench_force_branch_convert")
	s.benchRefusePassScratch, _ = sym("cuzk_cuda_bench_refuse_pass_scratch")
	s.benchNtt, _ = sym("cuzk_cuda_bench_ntt")
	if s.g1Upload, err = sym("cuzk_cuda_g1_upload"); err != nil {
		return err
	}
	if s.g1Free, err = sym("cuzk_cuda_g1_free"); err != nil {
		return err
	}
	if s.g1Alloc, err = sym("cuzk_cuda_g1_alloc"); err != nil {
		return err
	}
	if s.g1Put, err = sym("cuzk_cuda_g1_put"); err != nil {
		return err
	}
	if s.msmG1, err = sym("cuzk_cuda_msm_g1"); err != nil {
		return err
	}
	s.benchMsmG1, _ = sym("cuzk_cuda_bench_msm_g1")
	if s.g2Upload, err = sym("cuzk_cuda_g2_upload"); err != nil {
		return err
	}
	if s.g2Free, err = sym("cuzk_cuda_g2_free"); err != nil {
		return err
	}
	if s.g2Alloc, err = sym("cuzk_cuda_g2_alloc"); err != nil {
		return err
	}
	if s.g2Put, err = sym("cuzk_cuda_g2_put"); err != nil {
		return err
	}
	if s.msmG2, err = sym("cuzk_cuda_msm_g2"); err != nil {
		return err
	}
	s.benchMsmG2, _ = sym("cuzk_cuda_bench_msm_g2")
	if s.g1CheckSubgroup, err = sym("cuzk_cuda_g1_check_subgroup"); err != nil {
		return err
	}
	if s.g2CheckSubgroup, err = sym("cuzk_cuda_g2_check_subgroup"); err != nil {
		return err
	}
	if s.scalarsUpload, err = sym("cuzk_cuda_scalars_upload"); err != nil {
		return err
	}
	if s.scalarsSelect, err = sym("cuzk_cuda_scalars_select"); err != nil {
		return err
	}
	if s.scalarsDownload, err = sym("cuzk_cuda_scalars_download"); err != nil {
		return err
	}
	if s.scalarsFree, err = sym("cuzk_cuda_scalars_free"); err != nil {
		return err
	}
	if s.setOptions, err = sym("cuzk_cuda_set_options"); err != nil {
		return err
	}
	if s.memory, err = sym("cuzk_cuda_memory"); err != nil {
		return err
	}
	if s.streamNew, err = sym("cuzk_cuda_stream_new"); err != nil {
		return err
	}
	if s.streamPut, err = sym("cuzk_cuda_stream_put"); err != nil {
		return err
	}
	if s.streamMsm, err = sym("cuzk_cuda_stream_msm"); err != nil {
		return err
	}
	if s.streamFree, err = sym("cuzk_cuda_stream_free"); err != nil {
		return err
	}
	if s.streamPutFile, err = sym("cuzk_cuda_stream_put_file"); err != nil {
		return err
	}
	if s.streamWait, err = sym("cuzk_cuda_stream_wait"); err != nil {
		return err
	}
	if s.streamTakeStats, err = sym("cuzk_cuda_stream_take_stats"); err != nil {
		return err
	}
	if s.hAbcScalars, err = sym("cuzk_cuda_h_abc_scalars"); err != nil {
		return err
	}
	if s.hAbcLeanScalars, err = sym("cuzk_cuda_h_abc_lean_scalars"); err != nil {
		return err
	}
	if s.hostRegister, err = sym("cuzk_cuda_host_register"); err != nil {
		return err
	}
	if s.hostUnregister, err = sym("cuzk_cuda_host_unregister"); err != nil {
		return err
	}
	if s.hostRegisterReadOnly, err = sym("cuzk_cuda_host_register_read_only"); err != nil {
		return err
	}
	if s.msmG1Resident, err = sym("cuzk_cuda_msm_g1_resident"); err != nil {
		return err
	}
	if s.msmG2Resident, err = sym("cuzk_cuda_msm_g2_resident"); err != nil {
		return err
	}
	return nil
}
