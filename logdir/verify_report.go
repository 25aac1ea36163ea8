package logdir

import (
	"fmt"
	"io"
	"sort"
	"strings"
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

// WriteText prints one line per finding, then one line per partition and a total.
func (r *VerifyReport) WriteText(w io.Writer) {
	for _, f := range r.Findings {
		fmt.Fprintln(w, f.String())
	}
	for _, p := range r.Partitions {
		fmt.Fprintf(w, "partition %s: %s\n", p.Path, p.summary())
	}
	fmt.Fprintf(w, "%s, %s, %s, %s\n", plural(r.Segments, "segment"), plural(r.Batches, "batch"), plural(int(r.LogBytes), "log byte"), plural(r.Problems(), "problem"))
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
