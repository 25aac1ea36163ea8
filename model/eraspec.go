package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"kidx/internal/jsonwords"
)

// An era spec defines a candidate era: a proposed patch to Kafka's append and roll rules,
// written as a small JSON document rather than by editing Eras (docs/model.md,
// "Candidate eras"). It names a base era (an era ID, or a release whose era is taken) and switches
// the knobs no release has:
//
//	{
//	  "id": "fix-a-roll-on-index-room",
//	  "base": "4.1-4.4",
//	  "description": "shouldRoll also rolls when an index cannot take one entry per batch",
//	  "rollWhenAppendLacksIndexRoom": true
//	}
//
// The result is an Era like any other: Simulate, the props checkers and the reports take it.
// A Go program can build the same Era directly (copy a base era, set the knobs and
// Candidate) and pass it to SimulateEra.
type eraSpecFile struct {
	ID                           *string `json:"id"`
	Base                         *string `json:"base"`
	Description                  string  `json:"description"`
	RollWhenAppendLacksIndexRoom bool    `json:"rollWhenAppendLacksIndexRoom"`
	SkipEntryWhenIndexFull       bool    `json:"skipEntryWhenIndexFull"`
}

var eraSpecID = regexp.MustCompile(`^[a-z0-9][a-z0-9.+-]{0,63}$`)

// ParseEraSpec reads an era spec (see eraSpecFile) and returns its candidate era. Unknown
// keys, a missing id or base, an id that names a built-in era or rule, and a base that is no
// era or release are errors in words.
func ParseEraSpec(data []byte) (Era, error) {
	var f eraSpecFile
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := jsonwords.Describe(d.Decode(&f), ""); err != nil {
		return Era{}, fmt.Errorf("era spec: %w", err)
	}
	if d.More() {
		return Era{}, fmt.Errorf("era spec: more than one JSON document")
	}
	if f.ID == nil || f.Base == nil {
		return Era{}, fmt.Errorf(`era spec: "id" and "base" are required`)
	}
	id := *f.ID
	if !eraSpecID.MatchString(id) {
		return Era{}, fmt.Errorf("era spec: id %q: want 1 to 64 of a-z, 0-9, '.', '+', '-', starting with a letter or digit", id)
	}
	if _, ok := eraByID(id); ok || id == PerBatch.String() || id == PerAppend.String() {
		return Era{}, fmt.Errorf("era spec: id %q is a built-in era or rule: a candidate needs its own name", id)
	}
	base, ok := eraByID(*f.Base)
	if !ok {
		e, err := EraForKafkaVersion(*f.Base)
		if err != nil {
			_, idErr := EraByID(*f.Base)
			return Era{}, fmt.Errorf("era spec: base: %v; nor is it a release: %v", idErr, err)
		}
		base = e
	}
	if base.Candidate != "" {
		return Era{}, fmt.Errorf("era spec: base %q is itself a candidate", *f.Base)
	}
	e := base
	e.ID = id
	e.Candidate = base.ID
	e.Releases = fmt.Sprintf("candidate %s (on Kafka %s)", id, base.Releases)
	e.RollWhenAppendLacksIndexRoom = f.RollWhenAppendLacksIndexRoom
	e.SkipEntryWhenIndexFull = f.SkipEntryWhenIndexFull
	e.Sources = f.Description
	if e.Sources == "" {
		e.Sources = "a proposed patch"
	}
	e.Derived = "a candidate: a proposed patch in no Kafka release"
	return e, nil
}
