package logdir

import (
	"fmt"
	"strings"

	"kidx/segment"
)

// LiveState describes a segment whose indexes are untrimmed: preallocated to
// segment.index.bytes and zero-filled after their entries. Kafka trims an index when its
// segment rolls and at a clean shutdown (LogSegment.onBecomeInactiveSegment, close), so this
// is the active segment of a running broker, or a segment an unclean shutdown left.
type LiveState struct {
	Newest      bool   `json:"newest"` // the partition's newest segment (else an unclean shutdown left it)
	IndexSlots  int    `json:"indexSlots"`
	IndexValid  int    `json:"indexValid"`
	TimeSlots   int    `json:"timeIndexSlots"`
	TimeValid   int    `json:"timeIndexValid"`
	LogBytes    int64  `json:"logBytes"`
	Recovered   bool   `json:"recoveredAtUncleanStart"` // recovery would rebuild it (2.3+: from the recovery point on)
	UncleanNote string `json:"uncleanStart"`            // what Kafka does with it at a start after an unclean shutdown
}

// describeLive reports a live segment as what it is (info), and separately what Kafka would
// do with its files at its next start after an unclean shutdown, per era: the log line
// operators search for ("Found a corrupted index file ... rebuilding index files") and how
// much log that recovery reads.
func (w *segmentWalk) describeLive(newest bool) {
	seg := w.seg
	ix, tx := seg.Index, seg.TimeIndex
	untrimmedIndex := ix != nil && ix.Untrimmed()
	untrimmedTime := tx != nil && tx.Untrimmed()
	if !untrimmedIndex && !untrimmedTime {
		return
	}
	ls := &LiveState{Newest: newest, LogBytes: seg.Log.Size()}
	var files []string
	if ix != nil {
		ls.IndexSlots, ls.IndexValid = ix.Len(), ix.ValidLen()
		if untrimmedIndex {
			files = append(files, fmt.Sprintf(".index of %d bytes (%d slots) with %s", ix.FileSize, ix.Len(), plural(ix.ValidLen(), "valid entry")))
		}
	}
	if tx != nil {
		ls.TimeSlots, ls.TimeValid = tx.Len(), tx.ValidLen()
		if untrimmedTime {
			files = append(files, fmt.Sprintf(".timeindex of %d bytes (%d slots) with %s", tx.FileSize, tx.Len(), plural(tx.ValidLen(), "valid entry")))
		}
	}
	where := "the active segment of a running broker (or one an unclean shutdown left): Kafka trims its indexes at roll and at a clean shutdown"
	if !newest {
		where = "not the newest segment, so an unclean shutdown left it untrimmed (Kafka trims a segment's indexes when it rolls); unless a recovery rebuilds it, Kafka reopens it with every slot counted as an entry, and lookups land on zero entries (position 0)"
	}
	path := w.sf.Log
	if ix != nil && untrimmedIndex {
		path = ix.Path
	} else if tx != nil {
		path = tx.Path
	}
	sev := SeverityInfo
	if !newest {
		// Below the recovery point Kafka 2.3+ does not recover it, and reopens the index with
		// every slot counted as an entry: lookups there land on zero entries.
		sev = SeverityWarning
	}
	w.r.add(Finding{File: path, Pos: -1, Severity: sev, Check: CheckLive,
		Message: fmt.Sprintf("live segment: preallocated %s; %s", strings.Join(files, " and "), where)})
	w.verdict.Live = ls
}

// uncleanStart says, per load rule of the segment's eras, what a start after an unclean
// shutdown does with the live segment's files.
func (w *segmentWalk) uncleanStart() {
	ls := w.verdict.Live
	if ls == nil {
		return
	}
	eras := w.verdict.eras
	if g := w.ctx.opts.Era; g != nil {
		eras = EraSetOf(*g)
	}
	if eras.Empty() {
		eras = AllEras
	}
	seg := w.seg
	var idxSanity, timeSanity error
	if seg.Index != nil && seg.Index.Untrimmed() {
		idxSanity = seg.Index.SanityCheck()
	}
	if seg.TimeIndex != nil && seg.TimeIndex.Untrimmed() {
		timeSanity = seg.TimeIndex.SanityCheck()
	}
	recovered := true // from the recovery point on
	if rp := w.ctx.recoveryPoint; rp != nil && w.nextBase >= 0 && w.nextBase <= *rp {
		recovered = false // the whole segment lies below the recovery point
	}
	ls.Recovered = recovered
	var say []string
	seen := map[LoadRule]bool{}
	for i := len(Eras) - 1; i >= 0; i-- {
		e := Eras[i]
		if !eras.Has(e) || seen[e.Load] {
			continue
		}
		seen[e.Load] = true
		say = append(say, w.loadOutcome(e.Load, idxSanity, timeSanity, recovered))
	}
	var dls []string
	if idxSanity != nil {
		dls = append(dls, ".index: "+sanityText(idxSanity))
	} else if seg.Index != nil && seg.Index.Untrimmed() {
		dls = append(dls, ".index passes")
	}
	if timeSanity != nil {
		dls = append(dls, ".timeindex: "+sanityText(timeSanity))
	} else if seg.TimeIndex != nil && seg.TimeIndex.Untrimmed() {
		dls = append(dls, ".timeindex passes")
	}
	note := strings.Join(say, " ")
	if len(dls) > 0 {
		note += " kafka-dump-log --index-sanity-check now: " + strings.Join(dls, "; ") + "."
	}
	ls.UncleanNote = note
	w.r.add(Finding{File: w.sf.Log, Pos: -1, Severity: SeverityInfo, Check: CheckUncleanStart, Message: "at a start after an unclean shutdown: " + note})
}

func sanityText(err error) string {
	if fe, ok := err.(*segment.FormatError); ok {
		return fmt.Sprintf("%q", fe.Msg)
	}
	return fmt.Sprintf("%q", err.Error())
}

// loadOutcome is one era family's startup behaviour for the live segment.
func (w *segmentWalk) loadOutcome(rule LoadRule, idxSanity, timeSanity error, recovered bool) string {
	logPath, n := segment.KafkaPath(w.sf.Log), plural(int(w.seg.Log.Size()), "log byte")
	switch rule {
	case LoadRecoversFromCheckpoint:
		if !recovered {
			return fmt.Sprintf("Kafka 2.3+ checks no offset or time index at startup (KAFKA-7283) and recovers from the recovery point (%d) on: this segment lies below it and its index is reopened as it is, every slot an entry.", *w.ctx.recoveryPoint)
		}
		rp := "the recovery point"
		if w.ctx.recoveryPoint != nil {
			rp = fmt.Sprintf("the recovery point (%d)", *w.ctx.recoveryPoint)
		}
		return fmt.Sprintf("Kafka 2.3+ checks no offset or time index at startup (KAFKA-7283) and recovers every segment from %s on (LogLoader): %s read again, both indexes rebuilt.", rp, n)
	case LoadSanityRebuildsTime:
		if timeSanity != nil {
			return fmt.Sprintf("Kafka 2.0-2.2 check indexes at load: the time index fails and the broker logs \"Found a corrupted index file corresponding to log file %s due to %s}, recovering segment and rebuilding index files...\", then reads %s.", logPath, timeSanityMsg(timeSanity), n)
		}
		return "Kafka 2.0-2.2 check indexes at load: both pass here; the segment is recovered only past the recovery point."
	case LoadSanityRebuildsOffset:
		if w.seg.Index != nil && w.seg.Index.Untrimmed() && w.seg.Index.Len() > 0 {
			return fmt.Sprintf("Kafka 0.9-1.1 check the offset index at load (KAFKA-2012): its last slot names the base offset, the check fails (\"...no larger than the base offset\"; 1.1: \"no greater than\"), and the index is deleted and rebuilt from %s.", n)
		}
		return "Kafka 0.9-1.1 check the offset index at load (KAFKA-2012); it passes here."
	default:
		return "Kafka 0.8 recovers the active segment (0.8.1+: from the recovery point, KAFKA-615), then requires every index's last offset above its base offset (KAFKA-1112): an untrimmed index recovery leaves alone stops the log from loading."
	}
}

func timeSanityMsg(err error) string {
	if fe, ok := err.(*segment.FormatError); ok {
		return fe.Msg
	}
	return err.Error()
}
