package logdir

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"kidx/internal/printsafe"
)

// WriteKafkaSummary prints the mismatch summaries as DumpLogSegments prints them on stderr at
// the end of a run (index mismatches in descending index-offset order, as the Scala list
// prepend leaves them, then time-index errors), for the mismatches no era explains.
func (r *VerifyReport) WriteKafkaSummary(w io.Writer) {
	for _, p := range sortedKeys(r.IndexMismatches) {
		fmt.Fprintf(w, "Mismatches in :%s\n", p)
		l := r.IndexMismatches[p]
		for i := len(l) - 1; i >= 0; i-- {
			fmt.Fprintf(w, "  Index offset: %d, log offset: %d\n", l[i][0], l[i][1])
		}
	}
	for _, p := range sortedKeys(r.TimeMismatches) {
		fmt.Fprintf(w, "Found timestamp mismatch in :%s\n", p)
		for _, m := range r.TimeMismatches[p] {
			fmt.Fprintf(w, "  Index timestamp: %d, log timestamp: %d\n", m[0], m[1])
		}
	}
	for _, p := range sortedKeys(r.TimeOutOfOrder) {
		fmt.Fprintf(w, "Found out of order timestamp in :%s\n", p)
		for _, m := range r.TimeOutOfOrder[p] {
			fmt.Fprintf(w, "  Index timestamp: %d, Previously indexed timestamp: %d\n", m[0], m[1])
		}
	}
	for _, p := range sortedKeys(r.TimeNotFound) {
		fmt.Fprintln(w, "The following indexed offsets are not found in the log.")
		for _, m := range r.TimeNotFound[p] {
			fmt.Fprintf(w, "Indexed offset: %d, found log offset: %d\n", m[0], m[1])
		}
	}
}

// WriteText prints the report: every finding and a line per partition for one partition,
// else the summary (WriteTextWith).
func (r *VerifyReport) WriteText(w io.Writer) { r.WriteTextWith(w, false) }

// WriteTextWith prints one line per finding, then one line per partition and a total, when
// the report covers at most one partition or all is set. A log directory's report is
// summarized instead: the verdict, every problem, what each log directory's next start does,
// the notes counted by check, and the total (docs/logdirs.md, "verify's summary").
func (r *VerifyReport) WriteTextWith(w io.Writer, all bool) {
	if all || len(r.Partitions) <= 1 {
		for _, f := range r.Findings {
			fmt.Fprintln(w, f.String())
		}
		for _, p := range r.Partitions {
			fmt.Fprintf(w, "partition %s: %s\n", printsafe.Name(p.Path), p.summary())
		}
		fmt.Fprintln(w, r.total())
		return
	}
	fmt.Fprintln(w, r.Verdict())
	notes := map[string]int{}
	problems := 0
	for _, f := range r.Findings {
		if f.Severity == SeverityInfo {
			notes[f.Check] += f.Weight()
			continue
		}
		if problems == 0 {
			fmt.Fprintln(w, "problems:")
		}
		problems++
		fmt.Fprintf(w, "  %s\n", f)
	}
	for _, d := range r.LogDirs {
		fmt.Fprintf(w, "log directory %s: %s\n", printsafe.Name(d.Path), d.NextStart.Summary)
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "notes (info, not problems): %s; --all lists every finding and partition\n", NoteSummary(notes))
	}
	fmt.Fprintln(w, r.total())
}

// total is the last line: what was read and the problems found.
func (r *VerifyReport) total() string {
	return fmt.Sprintf("%s, %s, %s, %s, %s", plural(len(r.Partitions), "partition"), plural(r.Segments, "segment"), plural(r.Batches, "batch"), plural(int(r.LogBytes), "log byte"), plural(r.Problems(), "problem"))
}

// Verdict is one line: "damaged" with any error, "needs attention" with warnings only,
// "healthy" otherwise, and how many problems in how many partitions.
func (r *VerifyReport) Verdict() string {
	state, errs, warns, parts := r.verdictCounts()
	switch state {
	case VerdictDamaged:
		return fmt.Sprintf("verdict: %s: %s and %s, in %s", VerdictDamaged, plural(errs, "error"), plural(warns, "warning"), plural(parts, "partition"))
	case VerdictAttention:
		return fmt.Sprintf("verdict: %s: %s, in %s", VerdictAttention, plural(warns, "warning"), plural(parts, "partition"))
	}
	return fmt.Sprintf("verdict: %s: no problem in %s", VerdictHealthy, plural(len(r.Partitions), "partition"))
}

// verdictCounts are the verdict's state, its errors and warnings (summary lines counting
// what they stand for) and the partitions that hold them.
func (r *VerifyReport) verdictCounts() (state string, errs, warns, partitions int) {
	parts := map[string]bool{}
	for _, f := range r.Findings {
		switch f.Severity {
		case SeverityError:
			errs += f.Weight()
		case SeverityWarning:
			warns += f.Weight()
		default:
			continue
		}
		for _, p := range r.Partitions {
			if strings.HasPrefix(f.File, p.Path+string(filepath.Separator)) || f.File == p.Path {
				parts[p.Path] = true
				break
			}
		}
	}
	switch {
	case errs > 0:
		return VerdictDamaged, errs, warns, len(parts)
	case warns > 0:
		return VerdictAttention, errs, warns, len(parts)
	}
	return VerdictHealthy, 0, 0, 0
}

// Verdict states, from best to worst: verify's and analyze's (docs/reports.md, "A broker's
// verdict").
const (
	VerdictHealthy   = "healthy"
	VerdictAttention = "needs attention"
	VerdictDamaged   = "damaged"
)

// NoteSummary is "98 live-segment, 12 restart": info findings counted by check, the most
// frequent first.
func NoteSummary(counts map[string]int) string {
	checks := make([]string, 0, len(counts))
	for c := range counts {
		checks = append(checks, c)
	}
	sort.Slice(checks, func(i, j int) bool {
		if counts[checks[i]] != counts[checks[j]] {
			return counts[checks[i]] > counts[checks[j]]
		}
		return checks[i] < checks[j]
	})
	parts := make([]string, len(checks))
	for i, c := range checks {
		parts[i] = fmt.Sprintf("%d %s", counts[c], c)
	}
	return strings.Join(parts, ", ")
}

// summary is one line about a partition: segments, live ones, restarts, eras, other files.
func (p PartitionVerdict) summary() string {
	var parts []string
	live, restarts := 0, 0
	for _, s := range p.Segments {
		if s.Live != nil {
			live++
		}
		restarts += len(s.Restarts)
	}
	seg := plural(len(p.Segments), "segment")
	if live > 0 {
		seg += fmt.Sprintf(" (%d live)", live)
	}
	parts = append(parts, seg)
	if restarts > 0 {
		parts = append(parts, plural(restarts, "byte-counter restart"))
	}
	if p.JudgedAs != "" {
		parts = append(parts, "judged by "+p.JudgedAs+"'s rules")
	}
	if n := len(p.Segments); n > 0 && p.Segments[n-1].Eras != "" {
		parts = append(parts, "the newest segment's files are as "+p.Segments[n-1].Eras+" writes them")
	}
	var roles []string
	for role, n := range p.Files {
		roles = append(roles, fmt.Sprintf("%d %s", n, role))
	}
	sort.Strings(roles)
	if len(roles) > 0 {
		parts = append(parts, "other files: "+strings.Join(roles, ", "))
	}
	return strings.Join(parts, "; ")
}

func sortedKeys(m map[string][][2]int64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
