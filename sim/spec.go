package sim

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A specNode is one parsed generator spec: a kind, its parameters in the order given, the
// spec it wraps (follower, restarts) and the components of a mixture.
type specNode struct {
	kind   string
	params map[string]string
	order  []string
	inner  *specNode
	parts  []weighted
}

type weighted struct {
	weight float64
	node   *specNode
}

// specKinds lists every kind and the keys it accepts. Keys whose value is itself a spec are
// in nestedKeys. A wrapper takes the rest of its body, from the first item that starts a
// spec, as the spec it wraps.
var specKinds = map[string][]string{
	"fixed":     {"bytes", "records", "record.bytes", "ts.start"},
	"uniform":   {"min", "max", "record.bytes", "ts.start"},
	"lognormal": {"median", "sigma", "max", "record.bytes", "ts.start"},
	"tiny":      {"records.max", "value.min", "value.max", "ts.start"},
	"mixture":   {"ts.start", "record.bytes"},
	"bursty":    {"burst", "quiet", "burst.batches", "quiet.batches", "ts.start"},
	"producer": {"rate", "record", "batch.size", "linger.ms", "max.request.size", "compression.ratio",
		"key.bytes", "ts.start"},
	"follower": {"fetch"},
	"restarts": {"every", "recover"},
	"workload": {"path"},
	"logdir":   {"path", "topic", "partition"},
}

var nestedKeys = map[string]bool{"record": true, "burst": true, "quiet": true}

var wrapperKinds = map[string]bool{"follower": true, "restarts": true}

// sizeKinds can stand where a size distribution is expected (mixture components, record=,
// burst=, quiet=).
var sizeKinds = map[string]bool{"fixed": true, "uniform": true, "lognormal": true, "tiny": true, "mixture": true, "bursty": true}

var specStart = regexp.MustCompile(`^[a-z]+(:|\(|$)`)

// parseSpec parses `kind[:k=v,...]` or `kind(k=v,...)`. Errors name the bad key or value.
func parseSpec(s string) (*specNode, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty generator spec")
	}
	kind, body := s, ""
	if i := strings.IndexAny(s, ":("); i >= 0 {
		kind, body = s[:i], s[i+1:]
		if s[i] == '(' {
			if !strings.HasSuffix(body, ")") {
				return nil, fmt.Errorf("spec %q: missing ')'", s)
			}
			body = body[:len(body)-1]
		}
	}
	keys, ok := specKinds[kind]
	if !ok {
		return nil, fmt.Errorf("spec %q: unknown kind %q (kinds: %s)", s, kind, strings.Join(kindNames(), ", "))
	}
	n := &specNode{kind: kind, params: map[string]string{}}
	if kind == "mixture" {
		return n, n.parseMixture(body)
	}
	items := splitTop(body, ',')
	for i := 0; i < len(items); i++ {
		item := strings.TrimSpace(items[i])
		if item == "" {
			continue
		}
		k, v, hasEq := strings.Cut(item, "=")
		if wrapperKinds[kind] && (!hasEq || strings.ContainsAny(k, ":(")) && specStart.MatchString(item) {
			inner, err := parseSpec(strings.Join(items[i:], ","))
			if err != nil {
				return nil, err
			}
			n.inner = inner
			break
		}
		if !hasEq {
			return nil, fmt.Errorf("%s: %q: want key=value", kind, item)
		}
		k = strings.TrimSpace(k)
		if !contains(keys, k) {
			return nil, fmt.Errorf("%s: unknown key %q (keys: %s)", kind, k, strings.Join(keys, ", "))
		}
		if nestedKeys[k] {
			// record=lognormal:median=300,sigma=0.5,batch.size=...: the nested spec takes the
			// following items as long as they are keys it knows.
			v = strings.TrimSpace(v)
			if ik, _, ok := strings.Cut(v, ":"); ok && !strings.Contains(ik, "(") {
				inKeys := specKinds[ik]
				for i+1 < len(items) {
					nk, _, _ := strings.Cut(strings.TrimSpace(items[i+1]), "=")
					if nk = strings.TrimSpace(nk); !contains(inKeys, nk) || contains(keys, nk) {
						break
					}
					v += "," + strings.TrimSpace(items[i+1])
					i++
				}
			}
		}
		if _, dup := n.params[k]; dup {
			return nil, fmt.Errorf("%s: key %q given twice", kind, k)
		}
		n.params[k] = strings.TrimSpace(v)
		n.order = append(n.order, k)
	}
	if wrapperKinds[kind] && n.inner == nil {
		return nil, fmt.Errorf("%s: needs the spec it wraps after its keys, e.g. %s:...,lognormal:median=16384", kind, kind)
	}
	return n, nil
}

// parseMixture parses `0.9*lognormal(median=16384)+0.1*tiny`: components joined by '+',
// each an optional weight and '*' before a size spec (weight 1 when omitted).
func (n *specNode) parseMixture(body string) error {
	for _, c := range splitTop(body, '+') {
		c = strings.TrimSpace(c)
		w := 1.0
		if ws, rest, ok := strings.Cut(c, "*"); ok && !strings.ContainsAny(ws, "(:") {
			f, err := strconv.ParseFloat(strings.TrimSpace(ws), 64)
			if err != nil || f <= 0 {
				return fmt.Errorf("mixture: weight %q: want a positive number", ws)
			}
			w, c = f, rest
		}
		sub, err := parseSpec(c)
		if err != nil {
			return err
		}
		if !sizeKinds[sub.kind] {
			return fmt.Errorf("mixture: component %q is not a batch-size distribution", sub.kind)
		}
		n.parts = append(n.parts, weighted{w, sub})
	}
	if len(n.parts) == 0 {
		return fmt.Errorf("mixture: needs components, e.g. mixture:0.9*lognormal(median=16384)+0.1*tiny")
	}
	return nil
}

// splitTop splits s on sep outside parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func kindNames() []string {
	var out []string
	for k := range specKinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// applyOverrides sets top-level parameters: on the outermost spec that knows the key,
// looking through wrappers.
func (n *specNode) applyOverrides(over map[string]string) error {
	// In key order: the description lists the keys in the order they were added, and two
	// runs of one sweep must describe their workloads alike.
	for _, k := range slices.Sorted(maps.Keys(over)) {
		v := over[k]
		done := false
		for m := n; m != nil && !done; m = m.inner {
			if contains(specKinds[m.kind], k) {
				if _, ok := m.params[k]; !ok {
					m.order = append(m.order, k)
				}
				m.params[k] = v
				done = true
			}
		}
		if !done {
			return fmt.Errorf("override %s=%s: no part of the spec takes the key %q", k, v, k)
		}
	}
	return nil
}

// String prints the spec back in canonical form (parameters in the order given).
func (n *specNode) String() string {
	var b strings.Builder
	b.WriteString(n.kind)
	if n.kind == "mixture" {
		b.WriteString(":")
		for i, p := range n.parts {
			if i > 0 {
				b.WriteString("+")
			}
			fmt.Fprintf(&b, "%g*%s", p.weight, p.node.paren())
		}
		return b.String()
	}
	var items []string
	for _, k := range n.order {
		v := n.params[k]
		if nestedKeys[k] {
			if sub, err := parseSpec(v); err == nil {
				v = sub.paren()
			}
		}
		items = append(items, k+"="+v)
	}
	if n.inner != nil {
		items = append(items, n.inner.String())
	}
	if len(items) > 0 {
		b.WriteString(":" + strings.Join(items, ","))
	}
	return b.String()
}

// paren prints a nested spec with parentheses, which needs no key lookahead to parse.
func (n *specNode) paren() string {
	s := n.String()
	if k, body, ok := strings.Cut(s, ":"); ok && n.kind != "mixture" {
		return k + "(" + body + ")"
	}
	return s
}

// Parameter readers: each names the kind, key and bad value.

func (n *specNode) int64(key string, def, min, max int64) (int64, error) {
	v, ok := n.params[key]
	if !ok {
		return def, nil
	}
	x, err := parseSize(v)
	if err != nil || x < min || x > max {
		return 0, fmt.Errorf("%s: %s=%s: want an integer in [%d, %d]", n.kind, key, v, min, max)
	}
	return x, nil
}

func (n *specNode) float(key string, def, min, max float64) (float64, error) {
	v, ok := n.params[key]
	if !ok {
		return def, nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= min && x <= max) {
		return 0, fmt.Errorf("%s: %s=%s: want a number in [%g, %g]", n.kind, key, v, min, max)
	}
	return x, nil
}

// parseSize accepts integers with an optional K, M, G (powers of 1024: 16K = 16384) or
// k, m, g (powers of 1000) suffix.
func parseSize(v string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "K"):
		mult, v = 1<<10, v[:len(v)-1]
	case strings.HasSuffix(v, "M"):
		mult, v = 1<<20, v[:len(v)-1]
	case strings.HasSuffix(v, "G"):
		mult, v = 1<<30, v[:len(v)-1]
	case strings.HasSuffix(v, "k"):
		mult, v = 1e3, v[:len(v)-1]
	case strings.HasSuffix(v, "m"):
		mult, v = 1e6, v[:len(v)-1]
	case strings.HasSuffix(v, "g"):
		mult, v = 1e9, v[:len(v)-1]
	}
	x, err := strconv.ParseInt(v, 10, 64)
	return x * mult, err
}

// parseRate reads "2000/s", "2000" (per second), "120000/min", "2/ms" as records per
// millisecond.
func parseRate(v string) (float64, error) {
	num, unit, _ := strings.Cut(v, "/")
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || !(x > 0) {
		return 0, fmt.Errorf("want a positive rate like 2000/s")
	}
	per := time.Second
	switch unit {
	case "", "s":
	case "ms":
		per = time.Millisecond
	case "min", "m":
		per = time.Minute
	case "h":
		per = time.Hour
	default:
		return 0, fmt.Errorf("unit %q: want /ms, /s, /min or /h", unit)
	}
	return x / float64(per.Milliseconds()), nil
}
