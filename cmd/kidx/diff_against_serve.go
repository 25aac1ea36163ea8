package main

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"kidx/against"
	"kidx/corpus"
)

// againstServeFlags are diff --against's --serve, --protocol and --damage (docs/against.md,
// "Long-lived readers", "Protocol 2", "--damage").
type againstServeFlags struct {
	serve    bool
	protocol int
	damage   string
	// damageKinds is --damage parsed (Validate): nil every kind, empty none.
	damageKinds []string
}

func addAgainstServeFlags(f *pflag.FlagSet, s *againstServeFlags) {
	f.BoolVar(&s.serve, "serve", false, "with --against: start the reader once per worker and send it one request per line (the long-lived mode, docs/against.md); --timeout is then per request")
	f.IntVar(&s.protocol, "protocol", 1, "with --against: the reader protocol, 1 (offset queries) or 2 (offset, timestamp and which-segment queries)")
	f.StringVar(&s.damage, "damage", "", "with --against (generated cases): the damage kinds drawn, comma-separated, or none (default: every kind: "+strings.Join(corpus.DamageKinds, ",")+")")
}

// validate checks the flags and parses --damage; readsCases: --corpus or --dir is given.
func (s *againstServeFlags) validate(readsCases bool) error {
	if s.protocol != 1 && s.protocol != 2 {
		return usageErr("--protocol %d: want 1 or 2", s.protocol)
	}
	if s.damage == "" {
		return nil
	}
	if readsCases {
		return usageErr("--damage picks the damage of generated cases; --corpus and --dir read cases that exist")
	}
	kinds, err := parseDamageKinds(s.damage)
	if err != nil {
		return err
	}
	s.damageKinds = kinds
	return nil
}

// parseDamageKinds is --damage's value: "none" (an empty list: every case undamaged) or
// damage kinds, comma-separated; an unknown kind is refused with the list.
func parseDamageKinds(v string) ([]string, error) {
	if strings.TrimSpace(v) == "none" {
		return []string{}, nil
	}
	kinds := []string{}
	for k := range strings.SplitSeq(v, ",") {
		k = strings.TrimSpace(k)
		if !slices.Contains(corpus.DamageKinds, k) {
			return nil, usageErr("--damage %q: unknown damage kind %q; want none or some of %s", v, k, strings.Join(corpus.DamageKinds, ", "))
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return kinds, nil
}

// reader is the reader --against asks: one run per case, or with --serve a long-lived one
// (closed by the returned func); a test's in-process reader (diffAgainstReader) replaces both.
func (s againstServeFlags) reader(command string, f againstFlags) (against.Reader, func()) {
	if diffAgainstReader != nil {
		if s.protocol == 2 {
			return against.Protocol2{Reader: diffAgainstReader}, func() {}
		}
		return diffAgainstReader, func() {}
	}
	if s.serve {
		sv := &against.Serve{Line: command, Timeout: f.timeout, Protocol: s.protocol}
		return sv, func() { sv.Close() }
	}
	return &against.Command{Line: command, Timeout: f.timeout, Protocol: s.protocol}, func() {}
}
