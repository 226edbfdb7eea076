package params

import (
	"fmt"
	"sync"
	"time"

	"github.com/cuzk/cuzk/core/internal/fileio"
)

// LoadInfo tells how ReadProvingKeyInfo established a key's validity.
type LoadInfo struct {
	Validation Validation
	Key        ContentKey // zero when no record was kept
	Size       int64
	// Decode covers the read, the curve checks and the content key; Check
	// the manifest digest and the subgroup check, whichever ran.
	Decode, Check time.Duration
	// RecordErr is a failure to write the record; the key is still valid.
	RecordErr error
}

// ReadProvingKey reads a parameter file; see ReadProvingKeyInfo.
func ReadProvingKey(path string, opt Options) (*ProvingKey, error) {
	pk, _, err := ReadProvingKeyInfo(path, opt)
	return pk, err
}

// ReadProvingKeyInfo reads a parameter file: it is memory-mapped, its
// sections decoded in parallel with every point checked to be on the curve
// and, concurrently, its content key computed when opt.Record is set. The
// prime-order subgroup is then established, first that applies:
//
//   - opt.SkipSubgroupCheck: not at all (the caller trusts the file);
//   - opt.Record holds the content key: validated before;
//   - opt.Manifest lists the base name and the BLAKE2b digest matches;
//   - otherwise opt's checker runs over every point.
//
// Contents validated by the last two are added to opt.Record. A file that
// changes while it is read is not recorded.
func ReadProvingKeyInfo(path string, opt Options) (*ProvingKey, LoadInfo, error) {
	opt.Progress = serialised(opt.Progress)
	var (
		pk   *ProvingKey
		info LoadInfo
	)
	before, _ := fileio.StampOf(path)
	err := fileio.Decode("params", path, func(data []byte) (err error) {
		info.Size = int64(len(data))
		start := time.Now()
		record := opt.Record != nil && !opt.SkipSubgroupCheck
		var wg sync.WaitGroup
		if record {
			wg.Go(func() { info.Key = ContentKeyOf(data, opt.tasks()) })
		}
		pk, err = decodeCurve(data, opt)
		wg.Wait()
		info.Decode = time.Since(start)
		if err != nil {
			return err
		}
		if opt.Progress != nil {
			opt.Progress(StageDecode, info.Size, info.Size)
		}
		start = time.Now()
		defer func() { info.Check = time.Since(start) }()
		switch {
		case opt.SkipSubgroupCheck:
			info.Validation = ValidationSkipped
			return nil
		case record && opt.Record.Has(info.Key, info.Size):
			info.Validation = ValidationRecord
			return nil
		}
		info.Validation = ValidationChecked
		if _, ok := opt.Manifest.match(path, data, opt.Progress); ok {
			info.Validation = ValidationManifest
		} else if err := CheckSubgroups(pk, opt.checker(), opt.Progress); err != nil {
			return err
		}
		if after, _ := fileio.StampOf(path); record && after == before && before.Size == info.Size {
			info.RecordErr = opt.Record.Add(info.Key, info.Size, path, info.Validation)
		} else if record {
			info.RecordErr = fmt.Errorf("params: %s changed while it was read; not recorded", path)
		}
		return nil
	})
	if err != nil {
		return nil, LoadInfo{}, err
	}
	if !(opt.Record != nil && !opt.SkipSubgroupCheck) {
		info.Key = ContentKey{}
	}
	return pk, info, nil
}

// serialised makes fn safe to call from several goroutines, one call at a
// time.
func serialised(fn func(stage string, done, total int64)) func(stage string, done, total int64) {
	if fn == nil {
		return nil
	}
	var mu sync.Mutex
	return func(stage string, done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		fn(stage, done, total)
	}
}

// RateLimited passes on to fn at most one report per interval, the first
// an interval after it is made, and the last of a stage (done == total)
// once something of that stage was passed: a short load stays silent, a
// long one prints a line every interval and its end.
func RateLimited(interval time.Duration, fn func(stage string, done, total int64)) func(stage string, done, total int64) {
	var (
		mu     sync.Mutex
		last   = time.Now()
		shown  string // the stage last passed on
		closed bool   // its final report was passed on
	)
	return func(s string, done, total int64) {
		mu.Lock()
		now := time.Now()
		final := done >= total
		pass := now.Sub(last) >= interval || (final && s == shown && !closed)
		if pass {
			last, closed = now, final && s == shown
			if s != shown {
				shown, closed = s, final
			}
		}
		mu.Unlock()
		if pass {
			fn(s, done, total)
		}
	}
}
