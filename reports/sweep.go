package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"kidx/model"
)

// ProducerKeys are the producer settings a sweep may vary when the workload comes from the
// producer model (sim.NewGenerator overrides).
var ProducerKeys = []string{"batch.size", "linger.ms"}

// IsProducerKey reports whether key is a producer setting rather than a topic config.
func IsProducerKey(key string) bool {
	for _, k := range ProducerKeys {
		if k == key {
			return true
		}
	}
	return false
}

// maxSweepValues bounds one sweep: a geometric range with a factor near 1 would otherwise run
// for ever.
const maxSweepValues = 4096

// A Sweep varies one setting over a list of values.
type Sweep struct {
	Key    string
	Values []int64
}

// ParseSweep reads "key=v1,v2,..." or the geometric range "key=lo..hi*factor" (lo, lo×factor,
// ... up to hi, hi included when the range reaches it exactly). The key must be a topic config
// the model knows or a producer setting; values must be integers in the key's range.
func ParseSweep(s string) (Sweep, error) {
	key, spec, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Sweep{}, fmt.Errorf("sweep %q: want key=v1,v2,... or key=lo..hi*factor", s)
	}
	if !IsProducerKey(key) && !isConfigKey(key) {
		return Sweep{}, fmt.Errorf("sweep %q: unknown key %q (topic configs: %s; producer: %s)", s, key,
			strings.Join(model.ConfigKeys(), ", "), strings.Join(ProducerKeys, ", "))
	}
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Sweep{}, fmt.Errorf("sweep %q: no values", s)
	}
	var values []int64
	if lohi, factor, isRange := strings.Cut(spec, "*"); isRange || strings.Contains(spec, "..") {
		if !isRange {
			return Sweep{}, fmt.Errorf("sweep %q: a range needs a factor: lo..hi*factor", s)
		}
		loS, hiS, ok := strings.Cut(lohi, "..")
		if !ok {
			return Sweep{}, fmt.Errorf("sweep %q: a range is lo..hi*factor", s)
		}
		lo, err1 := strconv.ParseInt(strings.TrimSpace(loS), 10, 64)
		hi, err2 := strconv.ParseInt(strings.TrimSpace(hiS), 10, 64)
		f, err3 := strconv.ParseFloat(strings.TrimSpace(factor), 64)
		switch {
		case err1 != nil || err2 != nil || err3 != nil:
			return Sweep{}, fmt.Errorf("sweep %q: lo and hi must be integers and factor a number", s)
		case lo <= 0 || hi < lo:
			return Sweep{}, fmt.Errorf("sweep %q: a geometric range needs 0 < lo <= hi", s)
		case !(f > 1) || math.IsInf(f, 0):
			return Sweep{}, fmt.Errorf("sweep %q: the factor must be above 1", s)
		}
		for v := float64(lo); v <= float64(hi)*(1+1e-12); v *= f {
			iv := int64(math.Round(v))
			if len(values) == 0 || iv != values[len(values)-1] {
				values = append(values, iv)
			}
			if len(values) > maxSweepValues {
				return Sweep{}, fmt.Errorf("sweep %q: more than %d values", s, maxSweepValues)
			}
		}
	} else {
		for _, part := range strings.Split(spec, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				return Sweep{}, fmt.Errorf("sweep %q: empty value in the list", s)
			}
			v, err := strconv.ParseInt(part, 10, 64)
			if err != nil {
				return Sweep{}, fmt.Errorf("sweep %q: %q is not an integer", s, part)
			}
			values = append(values, v)
		}
	}
	for _, v := range values {
		if err := checkValue(key, v); err != nil {
			return Sweep{}, fmt.Errorf("sweep %q: %v", s, err)
		}
	}
	return Sweep{Key: key, Values: values}, nil
}

func isConfigKey(key string) bool {
	for _, k := range model.ConfigKeys() {
		if k == key {
			return true
		}
	}
	return false
}

func checkValue(key string, v int64) error {
	if IsProducerKey(key) {
		if v < 0 {
			return fmt.Errorf("%s=%d: must be >= 0", key, v)
		}
		return nil
	}
	var c model.Config = model.DefaultConfig()
	return c.SetInt(key, v)
}

// Setting is one (key, value) of a grid point.
type Setting struct {
	Key   string
	Value int64
}

// Grid expands sweeps into their cartesian product, the first sweep varying slowest. No sweep
// gives one empty point.
func Grid(sweeps []Sweep) [][]Setting {
	out := [][]Setting{nil}
	for _, s := range sweeps {
		var next [][]Setting
		for _, prefix := range out {
			for _, v := range s.Values {
				p := append(append([]Setting(nil), prefix...), Setting{s.Key, v})
				next = append(next, p)
			}
		}
		out = next
	}
	return out
}
