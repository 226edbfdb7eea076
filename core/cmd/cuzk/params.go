package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/filekind"
	"github.com/cuzk/cuzk/core/params"
)

// progressOut is the command's stderr: progress, warnings, flag errors
// (run sets it).
var progressOut io.Writer = os.Stderr

// Flag help shared by the commands that read parameter files.
const (
	trustedHelp = "skip the subgroup check of parameter points (curve checks stay)"
	configHelp  = "configuration (TOML or JSON); its srs section says how parameter files are validated"
)

// loadConfig reads an engine configuration file; "" gives the defaults.
func loadConfig(path string) (config.Config, error) {
	if path == "" {
		return config.Default(), nil
	}
	text, err := configIn.readSmall(path, maxConfigFile)
	if err != nil {
		return config.Config{}, err
	}
	cfg, warnings, err := config.ParseWarnings(string(text))
	if err != nil {
		return config.Config{}, configIn.check(path, filekind.Sniff(text), err)
	}
	for _, w := range warnings {
		fmt.Fprintln(progressOut, "cuzk:", w)
	}
	return cfg, nil
}

// recordDir is the validation record's directory: the configuration's, or
// the platform cache directory; "" (no record) where there is none.
func recordDir(cfg config.Config) string {
	if cfg.SRS.ValidationRecordDir != "" {
		return cfg.SRS.ValidationRecordDir
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "cuzk")
	}
	return ""
}

// Flag help of --quiet.
const quietHelp = "print no progress on stderr (warnings and errors still)"

// Stages of a parameter load in the command's summary.
const (
	stageLoadParams     = "load params"
	stageValidateParams = "validate params"
)

// readParams reads a parameter file as the library does: curve checks
// always; the subgroup check unless trusted (by the flag or the
// configuration), known from the record, or vouched for by Filecoin's
// manifest. The meter shows the load and records it as two stages: the
// decode with its curve checks, then what the subgroup check (or the
// record, or the manifest) took beyond it. checker is the engine's device
// checker (nil: the CPU's check): it checks on the GPU, and a device that
// keeps the key takes its points as they decode, trusted or not.
func readParams(m *meter, path string, cfg config.Config, trusted bool, checker params.SubgroupChecker) (*params.ProvingKey, error) {
	opt := params.Options{SkipSubgroupCheck: trusted || cfg.SRS.SkipSubgroupCheck, Progress: m.events(stageLoadParams), Checker: checker}
	if !opt.SkipSubgroupCheck {
		if dir := recordDir(cfg); dir != "" {
			opt.Record = params.OpenRecord(dir, m.recordWarning)
		}
		opt.Manifest = params.ManifestUnlessChecker(checker)
	}
	m.begin(stageLoadParams)
	pk, info, err := params.ReadProvingKeyInfo(path, opt)
	m.end(stageLoadParams)
	if err != nil {
		return nil, paramsIn.failed(path, err)
	}
	m.record(stageLoadParams, info.Decode, qty(info.Size, "bytes")+", decoded with curve checks")
	m.record(stageValidateParams, info.Check, validationNote[info.Validation])
	if info.RecordErr != nil {
		m.warnf("cuzk: warning: %v (the next load checks %s again)\n", info.RecordErr, path)
	}
	return pk, nil
}

// recordWarning reports a validation record ignored (untrusted or too
// large).
func (m *meter) recordWarning(err error) { m.warnf("cuzk: warning: %v\n", err) }

// validationNote says how a load established the subgroup.
var validationNote = map[params.Validation]string{
	params.ValidationChecked:  "subgroup check of every point (remembered for this file's contents)",
	params.ValidationRecord:   "subgroup checked before (validation record)",
	params.ValidationManifest: "Filecoin's published digest (BLAKE2b)",
	params.ValidationSetup:    "written by cuzk setup",
	params.ValidationSkipped:  "subgroup check skipped (trusted)",
}

// recordWritten records a parameter file this program computed, so that
// loading it needs no subgroup check.
func recordWritten(m *meter, path string, cfg config.Config) {
	dir := recordDir(cfg)
	if dir == "" {
		return
	}
	if err := params.OpenRecord(dir, m.recordWarning).AddFile(path, params.ValidationSetup, 0); err != nil {
		m.warnf("cuzk: warning: %s not recorded as valid (the first load checks it): %v\n", path, err)
	}
}
