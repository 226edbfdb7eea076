package service

import (
	"cmp"
	"os"
	"time"

	"github.com/cuzk/cuzk/core/filekind"
	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/progress"
)

// progressEvery bounds how often a long parameter load or proof is logged
// (a variable for tests).
var progressEvery = 10 * time.Second

// SetSubgroupChecker makes c check the subgroup of parameter points that
// are neither trusted nor recorded (a GPU's checker, say); nil goes back to
// the default: the engine's device checker if one offers it, else the CPU.
func (s *Service) SetSubgroupChecker(c params.SubgroupChecker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checker = c
}

// SetDefaultRecordDir is the validation record's directory when the
// configuration's srs.validation_record_dir is empty; the host resolves it
// (the platform cache directory). "" keeps no record then.
func (s *Service) SetDefaultRecordDir(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordDir = dir
}

// subgroupChecker returns the checker to load path with: the one set,
// else a device's (engine.LoadChecker: a key the devices stream from its
// file gives its pages back as it decodes), else nil (the CPU).
func (s *Service) subgroupChecker(path string) params.SubgroupChecker {
	s.mu.Lock()
	c := s.checker
	s.mu.Unlock()
	if c != nil {
		return c
	}
	eng, err := s.engine()
	if err != nil {
		return nil // the engine reports its own error on first use
	}
	var size int64
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	return eng.LoadChecker(size)
}

// loadOptions returns how to read path: trusted (by the caller or the
// configuration) files get the curve checks only; others are looked up in
// the record, then in Filecoin's manifest, then checked.
func (s *Service) loadOptions(path string, trusted bool) params.Options {
	cfg := s.config()
	// Off the heap: the devices that hold a key let its host pages go
	// (engine.WarmKey).
	opt := params.Options{SkipSubgroupCheck: trusted || cfg.SRS.SkipSubgroupCheck, OffHeap: true}
	if opt.SkipSubgroupCheck {
		// Unchecked, but a device still takes the points as they decode.
		opt.Checker = s.subgroupChecker(path)
		return opt
	}
	s.mu.Lock()
	if dir := cmp.Or(cfg.SRS.ValidationRecordDir, s.recordDir); dir != "" {
		if s.records[dir] == nil {
			s.records[dir] = params.OpenRecord(dir, func(err error) { s.log.Warn("cuzk: " + err.Error()) })
		}
		opt.Record = s.records[dir]
	}
	s.mu.Unlock()
	opt.Checker = s.subgroupChecker(path)
	opt.Manifest = params.ManifestUnlessChecker(opt.Checker)
	opt.Progress = progress.RateLimited(progressEvery, progress.Log(s.log, "cuzk: loading parameters", "path", path))
	return opt
}

// What the library's file readers take, named by the C call that reads:
// a reader's failure on a file of another kind says what the file is
// (filekind.Expect), as the command line's flags do.
var (
	loadParamsIn = filekind.Expect{Name: "cuzk_load_params", Kinds: []filekind.Kind{filekind.Params}}
	createSRSIn  = filekind.Expect{Name: "create_SRS", Kinds: []filekind.Kind{filekind.Params}}
	circuitIn    = filekind.Expect{Name: "cuzk_register_circuit", Kinds: []filekind.Kind{filekind.CircomR1CS, filekind.CuzkCircuit}}
)

// badFile is a reader's error on path, explained by in (filekind), as a
// status: the reader's own classification, or BadFile.
func badFile(in filekind.Expect, path string, err error) error {
	explained := in.Explain(path, err)
	if CodeOf(err) == InvalidArgument {
		return &Error{Code: BadFile, Err: explained}
	}
	return &Error{Code: CodeOf(err), Err: explained}
}

// readKey loads a parameter file with opt for the call in, logging how it
// was validated; it returns the key and the file's stamp when it was
// opened.
func (s *Service) readKey(in filekind.Expect, path string, opt params.Options) (*params.ProvingKey, fileio.Stamp, error) {
	pk, info, err := params.ReadProvingKeyInfo(path, opt)
	if err != nil {
		return nil, fileio.Stamp{}, badFile(in, path, err)
	}
	s.log.Info("cuzk: parameters loaded", "path", path, "validation", string(info.Validation),
		"decode", info.Decode.Round(time.Millisecond), "check", info.Check.Round(time.Millisecond))
	if info.CheckBusy > 0 {
		s.log.Debug("cuzk: subgroup check beside the decode", "path", path, "first_call", info.CheckStart.Round(time.Millisecond),
			"busy", info.CheckBusy.Round(time.Millisecond))
	}
	if info.RecordErr != nil {
		s.log.Warn("cuzk: parameters valid but not recorded; the next load checks them again", "path", path, "err", info.RecordErr)
	}
	s.warmKey(path, pk)
	return pk, info.Stamp, nil
}

// warmKey makes a loaded key's point sets resident on the GPUs now
// (engine.WarmKey), so that the first proof does not upload them inside
// its device region. A failure is only logged: that proof uploads what is
// missing, and reports a device that fails there.
func (s *Service) warmKey(path string, pk *params.ProvingKey) {
	eng, err := s.engine()
	if err != nil {
		return // the engine reports its own error on first use
	}
	start := time.Now()
	if err := eng.WarmKey(pk); err != nil {
		s.log.Warn("cuzk: parameters not made resident; the first proof uploads them", "path", path, "err", err)
		return
	}
	s.log.Debug("cuzk: parameters made resident", "path", path, "took", time.Since(start).Round(time.Millisecond))
}
