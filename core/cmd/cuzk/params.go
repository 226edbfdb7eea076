package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/filekind"
	"github.com/cuzk/cuzk/core/params"
)

// progressOut receives the progress of long parameter loads (stderr; run
// sets it).
var progressOut io.Writer = os.Stderr

// progressEvery is how often a long load prints a line.
const progressEvery = 5 * time.Second

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

// readParams reads a parameter file as the library does: curve checks
// always; the subgroup check unless trusted (by the flag or the
// configuration), known from the record, or vouched for by Filecoin's
// manifest.
func readParams(path string, cfg config.Config, trusted bool) (*params.ProvingKey, error) {
	opt := params.Options{SkipSubgroupCheck: trusted || cfg.SRS.SkipSubgroupCheck}
	if !opt.SkipSubgroupCheck {
		if dir := recordDir(cfg); dir != "" {
			opt.Record = params.OpenRecord(dir)
		}
		opt.Manifest = params.FilecoinManifest()
		opt.Progress = params.RateLimited(progressEvery, func(stage string, done, total int64) {
			fmt.Fprintf(progressOut, "cuzk: %s: %s %d%% (%d of %d)\n", filepath.Base(path), stage, 100*done/max(total, 1), done, total)
		})
	}
	pk, info, err := params.ReadProvingKeyInfo(path, opt)
	if err != nil {
		return nil, paramsIn.failed(path, err)
	}
	if info.RecordErr != nil {
		fmt.Fprintf(progressOut, "cuzk: warning: %v (the next load checks %s again)\n", info.RecordErr, path)
	}
	return pk, nil
}

// recordWritten records a parameter file this program computed, so that
// loading it needs no subgroup check.
func recordWritten(path string, cfg config.Config) {
	dir := recordDir(cfg)
	if dir == "" {
		return
	}
	if err := params.OpenRecord(dir).AddFile(path, params.ValidationSetup, 0); err != nil {
		fmt.Fprintf(progressOut, "cuzk: warning: %s not recorded as valid (the first load checks it): %v\n", path, err)
	}
}
