package params

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/progress"
)

// LoadInfo tells how ReadProvingKeyInfo established a key's validity.
type LoadInfo struct {
	Validation Validation
	Key        ContentKey // zero when no record was kept
	// Stamped: the key came from the record by the file's stamp, unhashed.
	Stamped bool
	Size    int64
	// Decode covers the read, the curve checks and the content key; Check
	// what remained after them of the subgroup check (which overlaps the
	// decode where it can) or the manifest digest, whichever ran.
	Decode, Check time.Duration
	// CheckStart is when the overlapped subgroup check first called the
	// checker, from the start of the load, and CheckBusy the time spent in
	// checker calls (summed over its goroutines): beside Decode they show
	// whether the check kept pace with the decoding (zero when it did not
	// run overlapped).
	CheckStart, CheckBusy time.Duration
	// RecordErr is a failure to write the record; the key is still valid.
	RecordErr error
	// Stamp is the file's stamp when it was opened (of the descriptor
	// read, not the path): a later stamp of the path equal to it names the
	// contents loaded.
	Stamp fileio.Stamp
}

// ReadProvingKey reads a parameter file; see ReadProvingKeyInfo.
func ReadProvingKey(path string, opt Options) (*ProvingKey, error) {
	pk, _, err := ReadProvingKeyInfo(path, opt)
	return pk, err
}

// ReadProvingKeyInfo reads a parameter file: it is memory-mapped, its
// sections decoded in parallel with every point checked to be on the curve.
// The prime-order subgroup is established, first that applies:
//
//   - opt.SkipSubgroupCheck: not at all (the caller trusts the file);
//   - opt.Record holds the file's stamp (looked up before reading) or,
//     hashed while the points decode, its content key: validated before;
//   - opt.Manifest lists the base name and the BLAKE2b digest matches;
//   - otherwise opt's checker runs over every point.
//
// When the checker may run, it checks each section as soon as it is
// decoded while the next ones decode (a RangeChecker each decoded block of
// a section, while the section's next blocks decode), from the start
// without a record,
// else from when the key is known and found unrecorded (a record hit does
// not spend a device's time). Errors are those of the stages run one
// after the other: a format or curve error first, else the first point
// outside the subgroup.
//
// Contents validated by the last two are added to opt.Record, with the
// file's stamp. A file that changes while it is read is not recorded.
func ReadProvingKeyInfo(path string, opt Options) (*ProvingKey, LoadInfo, error) {
	opt.Progress = progress.Serialised(opt.Progress)
	var (
		pk   *ProvingKey
		info LoadInfo
		rec  = opt.Record
	)
	if opt.SkipSubgroupCheck {
		rec = nil
	}
	at := time.Now()
	var kept keyHost
	// The stamp, the content key and the points all come from the one
	// descriptor opened here: taken from the path instead, a symlink
	// flipped between a good file and a bad one could pair the good file's
	// stamp or key with the bad file's points.
	err := fileio.DecodeOpened("params", path, func(o *fileio.Opened) (err error) {
		data, before := o.Data, o.Stamp
		info.Stamp = before
		if opt.OffHeap {
			f, err := o.Keep()
			if err != nil {
				return fmt.Errorf("params: %w", err)
			}
			kept.file = &keptFile{f: f}
			opt.src = &source{path: path, stamp: before, kept: kept.file}
		}
		if rec != nil {
			info.Key, info.Stamped = rec.keyByStamp(path, before)
		}
		info.Size = int64(len(data))
		start := time.Now()
		checker := opt.checker()
		_, listed := opt.Manifest[filepath.Base(path)]

		// Decode; beside it, hash unless the stamp gave the key, and check
		// the sections as they come when a check may be needed: from the
		// start when no recorded contents have the file's size (no hit is
		// possible), else once the key is known and not recorded (hashing
		// runs at ~20× the decode's speed, so it is known early, but
		// waiting for it put the check's start 1.3-1.4 s into a 2^24 load,
		// whose check then ended 1.7 s after the decode, on the H200).
		var checks *sectionChecks
		var ready chan struct{} // closed when the key is known and not recorded
		if rec != nil && !info.Stamped {
			ready = make(chan struct{})
		}
		filling := false // checks only hand a device the ranges
		switch {
		case !opt.SkipSubgroupCheck && !info.Stamped && !listed:
			wait := ready
			if ready != nil && !rec.HasSize(int64(len(data))) {
				wait = nil
			}
			checks = startChecks(checker, pointTotal(data), opt.Progress, wait)
			if checks.rc != nil && wait == nil {
				// a device checks every range from the start: the
				// decode leaves its workers their cores
				opt.NbTasks = decodeTasks(opt.tasks())
			}
		case !listed:
			// Nothing to check: a device still takes the ranges as they
			// decode (a 2^27-domain key is never whole on the host).
			checks = startFills(checker, pointTotal(data), opt.Progress)
			filling = checks != nil
		}
		var hit bool // the content key is recorded
		var hashErr error
		var wg sync.WaitGroup
		if ready != nil {
			wg.Go(func() {
				defer close(ready)
				hashErr = fileio.Guard(data, func() error {
					info.Key = hashContent(data, opt.tasks())
					return nil
				})
				if hashErr != nil {
					return
				}
				if hit = rec.Has(info.Key, info.Size); hit && checks != nil {
					checks.vouch()
				}
			})
		}
		pk, err = decodeCurve(data, opt, checks, &kept.regs)
		wg.Wait()
		if err == nil {
			err = hashErr
		}
		info.Decode = time.Since(start)
		if err != nil {
			if checks != nil {
				checks.finish(err)
			}
			return err
		}
		opt.Progress.Report(progress.Event{Stage: StageDecode, Done: info.Size, Total: info.Size, Unit: progress.Bytes})
		start = time.Now()
		defer func() {
			info.Check = time.Since(start)
			if checks != nil {
				info.CheckStart, info.CheckBusy = checks.timing(at)
			}
		}()
		// The same file, unwritten since it was opened: what was hashed
		// (or stamped) is what was decoded.
		after, afterErr := o.Restamp()
		unchanged := afterErr == nil && after == before && before.Size == info.Size

		// Establish the subgroup. A device that only took the ranges keeps
		// them if it took them all (a failed upload is not the file's
		// fault: what it left out goes up with the first proof).
		switch {
		case opt.SkipSubgroupCheck:
			if checks != nil {
				_ = checks.finish(nil)
			}
			info.Validation = ValidationSkipped
			return nil
		case info.Stamped && unchanged:
			if checks != nil {
				_ = checks.finish(nil)
			}
			info.Validation = ValidationRecord
			return nil
		case hit && unchanged:
			if checks != nil {
				_ = checks.finish(nil) // the record vouches
			}
			info.Validation = ValidationRecord
			if rec.stampable(before, at) {
				info.RecordErr = rec.addStamp(info.Key, info.Size, path, before)
			}
			return nil
		}
		if info.Stamped {
			// The file changed while it was read: what was decoded may not
			// be what the stamp vouched for, so it is checked.
			info.Key, info.Stamped = ContentKey{}, false
		}
		if filling || hit && checks != nil {
			// Only filling the device, or vouched for by a hit on a file
			// that changed while it was read (the points decoded may not
			// be the contents hashed): the whole check below.
			_ = checks.finish(nil)
			checks = nil
		}
		info.Validation = ValidationChecked
		if checks != nil {
			err = checks.finish(nil) // over the points decoded
		} else if _, ok := opt.Manifest.match(path, data, opt.Progress); ok && unchanged {
			info.Validation = ValidationManifest
		} else {
			err = CheckSubgroups(pk, checker, opt.Progress)
		}
		if err != nil {
			return err
		}
		switch {
		case rec == nil:
		case !unchanged:
			info.RecordErr = fmt.Errorf("params: %s changed while it was read; not recorded", path)
		default:
			var st *fileio.Stamp
			if rec.stampable(before, at) {
				st = &before
			}
			info.RecordErr = rec.add(info.Key, info.Size, path, info.Validation, st)
		}
		return nil
	})
	if err != nil {
		collectRegions(nil, kept)
		return nil, LoadInfo{}, err
	}
	pk.file = kept.file
	collectRegions(pk, kept)
	if rec == nil {
		info.Key = ContentKey{}
	}
	return pk, info, nil
}
