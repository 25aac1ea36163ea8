package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"kidx/explain"
	"kidx/internal/english"
	"kidx/internal/printsafe"
	"kidx/logdir"
)

// renderExplain writes explain's answers: JSON, or the text report.
func renderExplain(w io.Writer, format string, parts []explain.PartitionExplanation) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(explainJSON(parts))
	}
	writeExplainText(w, parts)
	return nil
}

// The JSON form (issue keys: dir, segments[].baseOffset, reproduced, eras, interval {min,
// max}, restarts [offsets], live, firstDisagreement; the rest added).
type (
	explainPartitionJSON struct {
		Dir        string               `json:"dir"`
		Topic      string               `json:"topic,omitempty"`
		Partition  int                  `json:"partition"`
		Reproduced bool                 `json:"reproduced"`
		Eras       []string             `json:"eras"`
		ErasText   string               `json:"erasText"`
		Interval   *intervalJSON        `json:"interval"`
		Intervals  [][2]int64           `json:"intervalSet"`
		Segments   []explainSegmentJSON `json:"segments"`
		Notes      []string             `json:"notes"`
		Unreadable []logdir.Finding     `json:"unreadable"`
	}
	intervalJSON struct {
		Min int64 `json:"min"`
		Max int64 `json:"max"`
	}
	explainSegmentJSON struct {
		BaseOffset        int64                 `json:"baseOffset"`
		Log               string                `json:"log"`
		Batches           int                   `json:"batches"`
		Reproduced        bool                  `json:"reproduced"`
		NoIndexes         bool                  `json:"noIndexes"`
		Live              bool                  `json:"live"`
		Eras              []string              `json:"eras"`
		ErasText          string                `json:"erasText"`
		Interval          *intervalJSON         `json:"interval"`
		Intervals         [][2]int64            `json:"intervalSet"`
		IntervalExact     bool                  `json:"intervalExact"`
		EraIntervals      []eraIntervalJSON     `json:"eraIntervals"`
		ReplayInterval    *int64                `json:"replayInterval"`
		Appends           string                `json:"appends"`
		History           string                `json:"history"`
		HistoryEvidence   []string              `json:"historyEvidence"`
		Recovery          *restartJSON          `json:"recovery"`
		Origin            string                `json:"origin"`
		Restarts          []int64               `json:"restarts"`
		RestartDetails    []restartJSON         `json:"restartDetails"`
		OffsetEntries     int                   `json:"offsetIndexEntries"`
		TimeEntries       int                   `json:"timeIndexEntries"`
		OtherShapeEras    []string              `json:"otherShapeEras"`
		OtherShape        [][2]int64            `json:"otherShapeIntervalSet"`
		Alternatives      []string              `json:"alternatives"`
		FirstDisagreement *explain.Disagreement `json:"firstDisagreement"`
		Notes             []string              `json:"notes"`
		Unreadable        []logdir.Finding      `json:"unreadable"`
	}
	eraIntervalJSON struct {
		Era       string     `json:"era"`
		Appends   string     `json:"appends"`
		Intervals [][2]int64 `json:"intervalSet"`
	}
	restartJSON struct {
		Offset           int64  `json:"offset"`
		Position         int64  `json:"position"`
		EarliestOffset   int64  `json:"earliestOffset"`
		EarliestPosition int64  `json:"earliestPosition"`
		Evidence         string `json:"evidence"`
		Snapshot         string `json:"snapshot,omitempty"`
	}
)

func intervalsJSON(s explain.IntervalSet) (*intervalJSON, [][2]int64) {
	out := [][2]int64{}
	for _, r := range s {
		out = append(out, [2]int64{r.Min, r.Max})
	}
	if s.Empty() {
		return nil, out
	}
	return &intervalJSON{Min: s.Min(), Max: s.Max()}, out
}

// explainSchema names explain's document (docs/schema/README.md).
const explainSchema = "kidx.explain/1"

func explainJSON(parts []explain.PartitionExplanation) any {
	out := struct {
		Schema     string                 `json:"schema"`
		Partitions []explainPartitionJSON `json:"partitions"`
	}{Schema: explainSchema, Partitions: []explainPartitionJSON{}}
	for i := range parts {
		p := &parts[i]
		pj := explainPartitionJSON{Dir: p.Dir, Topic: p.Topic, Partition: p.Partition, Reproduced: p.Reproduced(),
			Eras: p.Eras.IDs(), ErasText: p.Eras.String(), Segments: []explainSegmentJSON{}, Notes: nonNil(p.Notes),
			Unreadable: nonNilFindings(p.Unreadable)}
		pj.Interval, pj.Intervals = intervalsJSON(p.Interval)
		for j := range p.Segments {
			s := &p.Segments[j]
			sj := explainSegmentJSON{BaseOffset: s.BaseOffset, Log: s.Log, Batches: s.Batches, Reproduced: s.Reproduced,
				NoIndexes: s.NoIndexes, Live: s.Live, Eras: s.Eras.IDs(), ErasText: s.Eras.String(), IntervalExact: s.IntervalExact,
				Appends: string(s.Appends), Origin: s.Origin, Restarts: []int64{}, RestartDetails: []restartJSON{},
				OffsetEntries: s.OffsetEntries, TimeEntries: s.TimeEntries, Alternatives: nonNil(s.Alternatives),
				FirstDisagreement: s.FirstDisagreement, Notes: nonNil(s.Notes), EraIntervals: []eraIntervalJSON{},
				Unreadable: nonNilFindings(s.Unreadable), History: string(s.History), HistoryEvidence: nonNil(s.HistoryEvidence)}
			if s.Recovery != nil {
				r := restartJSON(*s.Recovery)
				sj.Recovery = &r
			}
			sj.Interval, sj.Intervals = intervalsJSON(s.Interval)
			_, sj.OtherShape = intervalsJSON(s.OtherShapeInterval)
			sj.OtherShapeEras = s.OtherShapeEras.IDs()
			if s.Reproduced {
				pick := s.IntervalPick
				sj.ReplayInterval = &pick
			}
			for _, ei := range s.EraIntervals {
				_, set := intervalsJSON(ei.Interval)
				sj.EraIntervals = append(sj.EraIntervals, eraIntervalJSON{Era: ei.Era.ID, Appends: string(ei.Appends), Intervals: set})
			}
			for _, r := range s.Restarts {
				sj.Restarts = append(sj.Restarts, r.Offset)
				sj.RestartDetails = append(sj.RestartDetails, restartJSON(r))
			}
			pj.Segments = append(pj.Segments, sj)
		}
		out.Partitions = append(out.Partitions, pj)
	}
	return out
}

func nonNilFindings(f []logdir.Finding) []logdir.Finding {
	if f == nil {
		return []logdir.Finding{}
	}
	return f
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeExplainText(w io.Writer, parts []explain.PartitionExplanation) {
	for i := range parts {
		p := &parts[i]
		verdict := "reproduced byte for byte"
		nothing := true
		for j := range p.Segments {
			nothing = nothing && p.Segments[j].NoIndexes
		}
		switch {
		case len(p.Unreadable) > 0:
			// verify's words: the directory could not be listed, so nothing of it is explained.
			for _, f := range p.Unreadable {
				fmt.Fprintf(w, "partition %s: %s: %s: not explained\n", printsafe.Name(p.Dir), f.Check, printsafe.Line(f.Message))
			}
			continue
		case !p.Reproduced():
			verdict = "NOT reproduced"
		case nothing:
			verdict = "nothing to reproduce (no index files)"
		}
		fmt.Fprintf(w, "partition %s: %s (%s)\n", printsafe.Name(p.Dir), verdict, plural(len(p.Segments), "segment"))
		if p.Reproduced() && !nothing {
			eras := p.Eras.String()
			if p.Eras.Empty() {
				eras = "no one release for every segment (an upgrade?); see each segment"
			}
			fmt.Fprintf(w, "  written by: %s; index.interval.bytes: %s\n", eras, p.Interval)
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "  note: %s\n", printsafe.Line(n))
		}
		for j := range p.Segments {
			writeExplainSegment(w, &p.Segments[j])
		}
	}
}

// severalBatchesText names the other shape with who writes it.
const severalBatchesText = "several batches per append (a follower's fetches, the cleaner)"

func plural(n int, what string) string { return english.Plural(int64(n), what) }

func writeExplainSegment(w io.Writer, s *explain.SegmentExplanation) {
	what := []string{plural(s.Batches, "batch"), plural(s.OffsetEntries, "offset-index entry"), plural(s.TimeEntries, "time-index entry")}
	if s.Live {
		what = append([]string{"live"}, what...)
	}
	if len(s.Unreadable) > 0 {
		fmt.Fprintf(w, "  segment %d: not explained: %s\n", s.BaseOffset, plural(len(s.Unreadable), "file")+" unreadable")
		for _, f := range s.Unreadable {
			fmt.Fprintf(w, "    %s\n", explain.UnreadableText(f))
		}
		return
	}
	state := "reproduced"
	switch {
	case s.NoIndexes:
		state = "no index files to reproduce"
	case !s.Reproduced:
		state = "NOT reproduced"
	}
	fmt.Fprintf(w, "  segment %d (%s): %s\n", s.BaseOffset, strings.Join(what, ", "), state)
	if s.Reproduced {
		switch s.History {
		case explain.HistoryCleaned:
			fmt.Fprintf(w, "    history: written by the log cleaner in one pass (no restart inside it), then closed: %s\n", printsafe.Line(strings.Join(s.HistoryEvidence, "; ")))
		case explain.HistoryRecovered:
			fmt.Fprintf(w, "    history: indexes rebuilt by recover() at the restart %s, then appended and closed: %s\n",
				restartWhere(*s.Recovery), printsafe.Line(strings.Join(s.HistoryEvidence, "; ")))
		}
		line := fmt.Sprintf("    by: %s, %s", s.Eras, s.Appends)
		switch s.Origin {
		case "leader":
			line += ", a leader's appends"
		case "replication":
			line += "; in 0.11-3.6 only as a follower's appends or rebuilt by recover()"
		}
		fmt.Fprintln(w, line)
		iv := s.Interval.String()
		if !s.IntervalExact {
			iv += " (restarts placed for this value only)"
		}
		fmt.Fprintf(w, "    index.interval.bytes: %s\n", iv)
		if !s.OtherShapeEras.Empty() {
			other := severalBatchesText
			if s.Appends == explain.SeveralBatchesPerAppend {
				other = string(explain.OneBatchPerAppend)
			}
			fmt.Fprintf(w, "    as well with %s: %s (%s)\n", other, s.OtherShapeInterval, s.OtherShapeEras)
		}
	}
	for _, r := range s.Restarts {
		fmt.Fprintf(w, "    restart: %s\n", restartText(r))
	}
	for _, a := range s.Alternatives {
		fmt.Fprintf(w, "    also: %s\n", printsafe.Line(a))
	}
	if d := s.FirstDisagreement; d != nil {
		fmt.Fprintf(w, "    first disagreement: %s\n", printsafe.Line(d.String()))
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "    note: %s\n", printsafe.Line(n))
	}
}

// restartWhere is where a restart lies, in words.
func restartWhere(r explain.Restart) string {
	if r.EarliestPosition < r.Position {
		return fmt.Sprintf("between offsets %d and %d (bytes %d-%d)", r.EarliestOffset, r.Offset, r.EarliestPosition, r.Position)
	}
	return fmt.Sprintf("before offset %d (byte %d)", r.Offset, r.Position)
}

func restartText(r explain.Restart) string {
	where := restartWhere(r)
	switch r.Evidence {
	case "producer-snapshot":
		return fmt.Sprintf("%s: a clean restart, as the producer snapshot %s shows", where, printsafe.Name(filepath.Base(r.Snapshot)))
	case "time-index":
		return fmt.Sprintf("%s: a restart or recovery, as the time-index entry close() appends shows", where)
	}
	return fmt.Sprintf("%s: required by the offset index, unmarked in the files (a restart whose close added no time-index entry, a recovery, or a follower's truncation)", where)
}
