package explain

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"kidx/internal/printsafe"
	"kidx/logdir"
	"kidx/segment"
)

// What the directory scan could not read (issue 27 item 4): a partition directory that cannot
// be listed, a segment file that cannot be opened. verify reports each as an "unreadable"
// finding and exits 1; explain says the same, in the same words, and counts the partition or
// segment as not reproduced, instead of explaining what is left as if the file were absent
// (which gave wrong reasons: "no index files", "the offset index was deleted").

// unreadableDirs are the directories of scan that are no partition it read but that it could
// not list (logdir.CheckUnreadable findings outside every scanned partition), each as a
// partition explanation holding that finding.
func unreadableDirs(scan *logdir.DirScan) []PartitionExplanation {
	var out []PartitionExplanation
	for _, f := range scan.Findings {
		if f.Check != logdir.CheckUnreadable || scan.InPartition(f.File) {
			continue
		}
		pe := PartitionExplanation{Dir: f.File, Partition: -1}
		if t, n, ok := segment.ParsePartitionDirName(filepath.Base(f.File)); ok {
			pe.Topic, pe.Partition = t, n
		}
		pe.Unreadable = []logdir.Finding{f}
		out = append(out, pe)
	}
	return out
}

// unreadableSegmentFiles are the .log, .index and .timeindex files of p that the scan set aside because open
// refused them, by base offset, each with verify's finding. The scan keeps no message for
// them, so each is opened again (read-only, non-blocking: never a FIFO, since only regular
// files are tried) for the error's words.
func unreadableSegmentFiles(p *logdir.PartitionDir) map[int64][]logdir.Finding {
	var out map[int64][]logdir.Finding
	paths := make([]string, 0, len(p.SetAside))
	for path, why := range p.SetAside {
		if why == logdir.SetAsidePresent {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	for _, path := range paths {
		name, ok := segment.ParseSegmentFileName(filepath.Base(path))
		if !ok || name.Transitional != "" || (name.Kind != segment.KindLog && name.Kind != segment.KindIndex && name.Kind != segment.KindTimeIndex) {
			continue // explain reads only a segment's .log, .index and .timeindex
		}
		st, err := os.Lstat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue // a directory, FIFO, socket, device or link: Kafka does not load it either
		}
		msg := "open refused when the directory was listed"
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err != nil {
			msg = segment.PathlessError(err)
		} else {
			f.Close()
		}
		if out == nil {
			out = map[int64][]logdir.Finding{}
		}
		out[name.BaseOffset] = append(out[name.BaseOffset], logdir.Finding{File: path, Pos: -1, Severity: logdir.SeverityWarning, Check: logdir.CheckUnreadable, Message: msg})
	}
	return out
}

// UnreadableText is a finding of Unreadable in verify's words without its severity:
// "FILE: unreadable: open: permission denied", the file's name quoted when it would not print
// as itself (internal/printsafe).
func UnreadableText(f logdir.Finding) string {
	return strings.Join([]string{printsafe.Name(f.File), f.Check, printsafe.Line(f.Message)}, ": ")
}
