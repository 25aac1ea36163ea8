package fuzz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"kidx/model"
)

// Shrink reduces d's workload while the harness still reports a divergence of the same kind:
// it drops halves and then single steps, drops batches from multi-batch appends, lowers record
// counts and sizes (staying encodable) and clears timestamps, until nothing more helps or
// budget checks were spent (<= 0: 2000), then drops the config keys it does not need. The result is a workload file small enough to read.
func Shrink(d *Divergence, o *Options, budget int) *Divergence {
	best := d
	ShrinkWorkload(d.Workload, budget, func(w model.Workload) bool {
		nd, err := Check(w, o)
		if err != nil || nd == nil || nd.Kind != best.Kind {
			return false
		}
		best = nd
		return true
	})
	return best
}

// ShrinkWorkload is Shrink's search on any predicate: keep(w) runs the check on a smaller
// candidate and reports whether it still fails the same way (keeping it as the new best).
// It returns the smallest workload kept.
func ShrinkWorkload(start model.Workload, budget int, keep func(model.Workload) bool) model.Workload {
	if budget <= 0 {
		budget = 2000
	}
	best := start
	try := func(w model.Workload) bool {
		if budget <= 0 {
			return false
		}
		budget--
		if !keep(w) {
			return false
		}
		best = w
		return true
	}
	for improved := true; improved && budget > 0; {
		improved = false
		// Drop chunks of steps, large chunks first.
		for chunk := len(best.Steps) / 2; chunk >= 1; chunk /= 2 {
			for i := 0; i+chunk <= len(best.Steps); {
				w := cloneWorkload(best)
				w.Steps = slices.Delete(w.Steps, i, i+chunk)
				if len(w.Steps) > 0 && try(w) {
					improved = true
					continue
				}
				i += chunk
			}
		}
		// Drop batches from multi-batch appends, then simplify every batch.
		for i := 0; i < len(best.Steps); i++ {
			for j := 0; j < len(best.Steps[i].Append); j++ {
				if len(best.Steps[i].Append) > 1 {
					w := cloneWorkload(best)
					w.Steps[i].Append = slices.Delete(w.Steps[i].Append, j, j+1)
					if try(w) {
						improved = true
						j--
						continue
					}
				}
				for _, f := range batchShrinks {
					b := best.Steps[i].Append[j]
					nb, ok := f(b)
					if !ok || nb == b || !Encodable(nb.Records, nb.Bytes) {
						continue
					}
					w := cloneWorkload(best)
					w.Steps[i].Append[j] = nb
					if try(w) {
						improved = true
					}
				}
			}
		}
		// A start offset of 0 reads best.
		if best.StartOffset != 0 {
			w := cloneWorkload(best)
			w.StartOffset = 0
			if try(w) {
				improved = true
			}
		}
	}
	// Then the config: each key dropped (Kafka's default takes its place) while the failure
	// stays, so that the workload says only what it needs.
	for _, k := range slices.Sorted(maps.Keys(best.Config)) {
		w := cloneWorkload(best)
		delete(w.Config, k)
		try(w)
	}
	return best
}

var batchShrinks = []func(model.Batch) (model.Batch, bool){
	func(b model.Batch) (model.Batch, bool) {
		b.Records = 1
		b.Bytes = max(b.Bytes, MinBatchSize(1))
		return b, true
	},
	func(b model.Batch) (model.Batch, bool) { b.Records = max(b.Records/2, 1); return b, true },
	func(b model.Batch) (model.Batch, bool) { b.Bytes = MinBatchSize(b.Records); return b, true },
	func(b model.Batch) (model.Batch, bool) {
		b.Bytes = max(MinBatchSize(b.Records), (b.Bytes+MinBatchSize(b.Records))/2)
		return b, true
	},
	func(b model.Batch) (model.Batch, bool) { b.Bytes--; return b, true },
	func(b model.Batch) (model.Batch, bool) { b.MaxTimestamp = model.NoTimestamp; return b, true },
}

func cloneWorkload(w model.Workload) model.Workload {
	c := w
	c.Config = make(map[string]int64, len(w.Config))
	for k, v := range w.Config {
		c.Config[k] = v
	}
	c.Steps = make([]model.Step, len(w.Steps))
	for i, s := range w.Steps {
		c.Steps[i] = s
		c.Steps[i].Append = slices.Clone(s.Append)
	}
	return c
}

// note is the sidecar WriteReproduction writes next to a workload file: the model's
// ParseWorkload refuses unknown keys (a typo must not fall back to a default), so what the
// harness saw cannot go into the workload file itself.
type note struct {
	Divergence string `json:"divergence"`
	What       string `json:"what"`
}

// MarshalReproduction renders d's workload as a docs/contract.md §3 workload file, config and rule
// included, that `kidx sim`, `kidx write` and Replay read back.
func MarshalReproduction(d *Divergence) ([]byte, error) { return d.Workload.MarshalJSON() }

// WriteReproduction writes d's workload as a docs/contract.md §3 workload file in dir, named after a hash
// of its content, and the divergence text next to it (same name, .txt). It returns the
// workload file's path.
func WriteReproduction(dir string, d *Divergence) (string, error) {
	wl, err := MarshalReproduction(d)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	sum := sha256.Sum256(wl)
	name := "divergence-" + hex.EncodeToString(sum[:6])
	path := filepath.Join(dir, name+".json")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, wl, "", "  "); err != nil {
		return "", err
	}
	pretty.WriteByte('\n')
	note, _ := json.MarshalIndent(note{Divergence: d.Kind, What: d.What}, "", "  ")
	if err := errors.Join(
		os.WriteFile(path, pretty.Bytes(), 0o644),
		os.WriteFile(filepath.Join(dir, name+".txt"), append(note, '\n'), 0o644)); err != nil {
		return "", err
	}
	return path, nil
}

// Replay reads a workload file (docs/contract.md §3, as WriteReproduction writes it) and runs it through
// the harness: a reproduction reproduces its divergence.
func Replay(path string, o *Options) (*Divergence, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	w, err := model.ParseWorkload(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return Check(w, o)
}
