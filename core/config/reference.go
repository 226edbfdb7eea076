package config

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// The reference daemon's cuzk.toml (its config struct's every key; docs/migration.md), for users who
// migrate: each of its keys is read as ours or ignored with a warning that
// says why it does not apply to a library. A key the reference shares
// with us keeps its meaning.
type reference struct {
	key string // dotted, as in the reference's file
	to  string // our key; "" = ignored
	why string // for an ignored key: why; for a renamed one: a note
	// ms: the reference's value is milliseconds (an integer); ours is a
	// duration
	ms bool
}

var referenceKeys = []reference{
	{key: "daemon.listen", why: "cuzk is a library in its host's process, with no server of its own (the host serves its API; Curio's scheduler places proofs)"},
	{key: "daemon.status_listen", to: "metrics.listen"},
	{key: "srs.param_cache", why: "the host names each parameter file (create_SRS, cuzk_load_params); validated contents are remembered in srs.validation_record_dir"},
	{key: "srs.preload", why: "deprecated in the reference daemon; parameters load when the host opens them"},
	{key: "memory.total_budget", to: "memory.budget"},
	{key: "memory.eviction_min_idle", why: "the SRS cache is the host's: create_SRS/evict_SRS, at most 4 entries, the least recently used evicted"},
	{key: "memory.pinned_budget", why: "deprecated in the reference daemon; page-locked buffers count in memory.budget"},
	{key: "memory.working_memory_budget", why: "deprecated in the reference daemon; memory.budget bounds the working sets"},
	{key: "gpus.gpu_threads", to: "gpus.g2_threads"},
	{key: "gpus.gpu_workers_per_device", to: "gpus.workers_per_device"},
	{key: "scheduler.max_batch_size", to: "scheduler.batch_max"},
	{key: "scheduler.max_batch_wait_ms", to: "scheduler.batch_wait", ms: true},
	{key: "scheduler.sort_by_type", why: "the queue orders by priority and batches jobs of one circuit (scheduler.batch_max)"},
	{key: "synthesis.partition_workers", why: "deprecated in the reference daemon; synthesis.max_parallel bounds the partitions synthesized at once"},
	{key: "pipeline.enabled", why: "the engine always pipelines partitions (synthesis beside proving)"},
	{key: "pipeline.synthesis_lookahead", to: "synthesis.queue_depth"},
	{key: "pipeline.synthesis_concurrency", why: "synthesis.max_parallel bounds the partitions synthesized at once, of any proof"},
	{key: "pipeline.max_parallel_synthesis", why: "synthesis.max_parallel bounds the partitions synthesized at once"},
	{key: "pipeline.slot_size", why: "partitions always go to the devices one by one; synthesis.max_parallel and memory.budget bound those in flight"},
	{key: "pipeline.max_gpu_queue_depth", why: "synthesis.queue_depth bounds the synthesized partitions waiting for a device"},
}

// migrate rewrites the reference daemon's keys in doc (a decoded TOML
// document) into ours, dropping those that do not apply, and returns a
// warning for each.
func migrate(doc map[string]any) ([]string, error) {
	var warnings []string
	for _, r := range referenceKeys {
		parts := strings.Split(r.key, ".")
		table, _ := doc[parts[0]].(map[string]any)
		v, ok := table[parts[1]]
		if !ok {
			continue
		}
		delete(table, parts[1])
		if r.to == "" {
			warnings = append(warnings, fmt.Sprintf("config: %s (the reference daemon's) is ignored: %s", r.key, r.why))
			continue
		}
		to := strings.Split(r.to, ".")
		dst, _ := doc[to[0]].(map[string]any)
		if dst == nil {
			dst = map[string]any{}
			doc[to[0]] = dst
		}
		if _, both := dst[to[1]]; both {
			return nil, fmt.Errorf("config: %s and %s (its reference-daemon name) are both set", r.to, r.key)
		}
		if r.ms {
			ms, ok := v.(int64)
			if max := int64(maxBatchWait / time.Millisecond); !ok || ms < 0 || ms > max {
				return nil, fmt.Errorf("config: %s: want an integer of milliseconds from 0 to %d (got %.40v)", r.key, max, v)
			}
			v = fmt.Sprintf("%dms", ms)
		}
		dst[to[1]] = v
		warnings = append(warnings, fmt.Sprintf("config: %s (the reference daemon's) is read as %s", r.key, r.to))
	}
	// An emptied table would still be an unknown key.
	for k, v := range doc {
		if t, ok := v.(map[string]any); ok && len(t) == 0 && (k == "daemon" || k == "pipeline") {
			delete(doc, k)
		}
	}
	sort.Strings(warnings)
	return warnings, nil
}

// migrateTOML applies migrate to a TOML text and returns it re-encoded,
// unchanged when it holds none of the reference's keys.
func migrateTOML(text string) (string, []string, error) {
	var doc map[string]any
	if _, err := toml.Decode(text, &doc); err != nil {
		return "", nil, decodeError(err)
	}
	warnings, err := migrate(doc)
	if err != nil || len(warnings) == 0 {
		return text, nil, err
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(doc); err != nil {
		return "", nil, fmt.Errorf("config: %w", err)
	}
	return buf.String(), warnings, nil
}
