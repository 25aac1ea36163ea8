package fuzz

import (
	"bytes"
	"fmt"
	"path/filepath"

	"kidx/logdir"
	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// compareDir compares the model's (closed) segments with the segment files in dir on fsys, read
// back through logdir.ScanDir and segment.OpenSegment on the OS, through
// segment.SegmentSetsFS and segment.OpenSegmentFS on another filesystem. It returns the
// divergence kind and text, or an error when the harness could not read what it wrote.
func compareDir(fsys vfs.FS, segs []*model.Segment, dir string) (kind, what string, err error) {
	var files []segment.SegmentFiles
	if fsys == vfs.OS {
		scan, err := logdir.ScanDir(dir)
		if err != nil {
			return "", "", err
		}
		for _, p := range scan.Partitions {
			files = append(files, p.Segments...)
		}
		if len(scan.Partitions) > 1 {
			return "segments", fmt.Sprintf("ScanDir found %d partitions in one partition directory", len(scan.Partitions)), nil
		}
	} else if files, err = segment.SegmentSetsFS(fsys, dir); err != nil {
		return "", "", err
	}
	if len(files) != len(segs) {
		return "segments", fmt.Sprintf("model has %d segments %v, files %d %v", len(segs), modelBases(segs), len(files), fileBases(files)), nil
	}
	c := comparer{fs: fsys}
	for i, ms := range segs {
		if files[i].BaseOffset != ms.BaseOffset() {
			return "segments", fmt.Sprintf("segment %d: model base offset %d, files %d", i, ms.BaseOffset(), files[i].BaseOffset), nil
		}
		if kind, what, err = c.segment(ms, files[i]); err != nil || what != "" {
			if what != "" {
				what = fmt.Sprintf("segment %d (base %d): %s", i, ms.BaseOffset(), what)
			}
			return kind, what, err
		}
	}
	return "", "", nil
}

func modelBases(segs []*model.Segment) []int64 {
	out := make([]int64, len(segs))
	for i, s := range segs {
		out[i] = s.BaseOffset()
	}
	return out
}

func fileBases(fs []segment.SegmentFiles) []int64 {
	out := make([]int64, len(fs))
	for i, s := range fs {
		out[i] = s.BaseOffset
	}
	return out
}

// timeSamples bounds the batches whose timestamps are looked up per segment.
const timeSamples = 12

// comparer holds buffers reused across segments.
type comparer struct {
	fs      vfs.FS
	enc     []byte
	batches []segment.BatchInfo
	tss     []int64
}

// EncodeOffsetIndex is the .index image of entries: per entry int32 offset-base and int32
// position, big-endian (docs/kafka.md §4), written independently of package segment's encoder.
func EncodeOffsetIndex(dst []byte, base int64, es []model.OffsetPosition) []byte {
	for _, e := range es {
		rel, pos := uint32(int32(e.Offset-base)), uint32(int32(e.Position))
		dst = append(dst, byte(rel>>24), byte(rel>>16), byte(rel>>8), byte(rel), byte(pos>>24), byte(pos>>16), byte(pos>>8), byte(pos))
	}
	return dst
}

// EncodeTimeIndex is the .timeindex image: per entry int64 timestamp and int32 offset-base,
// big-endian (docs/kafka.md §6).
func EncodeTimeIndex(dst []byte, base int64, es []model.TimestampOffset) []byte {
	for _, e := range es {
		ts, rel := uint64(e.Timestamp), uint32(int32(e.Offset-base))
		dst = append(dst, byte(ts>>56), byte(ts>>48), byte(ts>>40), byte(ts>>32), byte(ts>>24), byte(ts>>16), byte(ts>>8), byte(ts),
			byte(rel>>24), byte(rel>>16), byte(rel>>8), byte(rel))
	}
	return dst
}

func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func (c *comparer) bytesEqual(kind, path string, want []byte) (string, string, error) {
	got, err := segment.ReadFileShared(c.fs, path)
	if err != nil {
		return "", "", err
	}
	if !bytes.Equal(got, want) {
		return kind, fmt.Sprintf("%s: %d bytes, model's entries encode to %d; first difference at byte %d", filepath.Base(path), len(got), len(want), firstDiff(got, want)), nil
	}
	return "", "", nil
}

func (c *comparer) segment(ms *model.Segment, sf segment.SegmentFiles) (string, string, error) {
	if sf.Log == "" || sf.Index == "" || sf.TimeIndex == "" {
		return "segments", fmt.Sprintf("files missing: log %q index %q timeindex %q", sf.Log, sf.Index, sf.TimeIndex), nil
	}
	base := ms.BaseOffset()
	c.enc = EncodeOffsetIndex(c.enc[:0], base, ms.OffsetIndex().All())
	if k, w, err := c.bytesEqual("index-bytes", sf.Index, c.enc); k != "" || err != nil {
		return k, w, err
	}
	c.enc = EncodeTimeIndex(c.enc[:0], base, ms.TimeIndex().All())
	if k, w, err := c.bytesEqual("timeindex-bytes", sf.TimeIndex, c.enc); k != "" || err != nil {
		return k, w, err
	}
	fs, err := segment.OpenSegmentFS(c.fs, sf.Log)
	if err != nil {
		return "", "", err
	}
	defer fs.Close()
	if fs.Log.Size() != ms.Size() {
		return "log", fmt.Sprintf(".log is %d bytes, model %d", fs.Log.Size(), ms.Size()), nil
	}
	// The .log walk (FileLogInputStream.nextBatch, docs/kafka.md §1.5) against the model's batches.
	c.batches = c.batches[:0]
	res := fs.Log.Walk(0, 0, func(b segment.BatchInfo) bool {
		c.batches = append(c.batches, b)
		return true
	})
	if res.Err != nil || res.TrailingBytes() != 0 {
		return "log", fmt.Sprintf(".log walk stopped at %d of %d: %v", res.ValidBytes, res.End, res.Err), nil
	}
	mb := ms.Batches()
	if len(mb) != len(c.batches) {
		return "log", fmt.Sprintf("model has %d batches, .log %d", len(mb), len(c.batches)), nil
	}
	for i, b := range c.batches {
		m := mb[i]
		if b.Position != m.Position || b.BaseOffset() != m.BaseOffset || b.LastOffset() != m.LastOffset || b.Size != m.Size || b.MaxTimestamp() != m.MaxTimestamp {
			return "log", fmt.Sprintf("batch %d: model {pos %d offsets %d..%d size %d maxTs %d}, .log {pos %d offsets %d..%d size %d maxTs %d}",
				i, m.Position, m.BaseOffset, m.LastOffset, m.Size, m.MaxTimestamp, b.Position, b.BaseOffset(), b.LastOffset(), b.Size, b.MaxTimestamp()), nil
		}
	}
	// docs/contract.md §5: for every offset of the segment, and one past it, phase 1 (start) and phase 2
	// (hit batch, hops) on files against the model.
	for o := base; o <= ms.LastOffset()+1; o++ {
		mr, mok := ms.Lookup(o)
		fr, err := fs.Lookup(o)
		if err != nil {
			return "lookup", fmt.Sprintf("lookup(%d) on files: %v", o, err), nil
		}
		if fr.Found != mok || fr.IndexOffset != mr.Index.Offset || fr.IndexPosition != mr.Index.Position ||
			(mok && (fr.HitPosition != mr.Hit.Position || fr.HitBaseOffset != mr.Hit.BaseOffset || fr.HitLastOffset != mr.Hit.LastOffset ||
				fr.HitSize != mr.Hit.Size || int64(fr.Hops) != mr.Hops)) {
			return "lookup", fmt.Sprintf("lookup(%d): model {found %v start (%d, %d) hit pos %d offsets %d..%d hops %d}, files {found %v start (%d, %d) hit pos %d offsets %d..%d hops %d}",
				o, mok, mr.Index.Offset, mr.Index.Position, mr.Hit.Position, mr.Hit.BaseOffset, mr.Hit.LastOffset, mr.Hops,
				fr.Found, fr.IndexOffset, fr.IndexPosition, fr.HitPosition, fr.HitBaseOffset, fr.HitLastOffset, fr.Hops), nil
		}
	}
	// Time lookups (docs/kafka.md §7.4) at the max timestamp of up to timeSamples batches and their
	// neighbours, the segment's largest, and the extremes. Phase 1 (time-index entry, start position) must be equal; in phase 2 the
	// model's hit batch must hold the record the files find.
	c.tss = append(c.tss[:0], -1, 0, 1<<62)
	stride := max(1, len(mb)/timeSamples)
	for i := 0; i < len(mb); i += stride {
		ts := mb[i].MaxTimestamp
		c.tss = append(c.tss, ts-1, ts, ts+1)
	}
	if n := len(mb); n > 0 {
		c.tss = append(c.tss, mb[n-1].MaxTimestamp, ms.MaxTimestamp(), ms.MaxTimestamp()+1)
	}
	for _, ts := range c.tss {
		mr, mok := ms.LookupTimestamp(ts)
		fr, err := fs.LookupTimestamp(ts)
		if err != nil {
			return "time-lookup", fmt.Sprintf("lookupTimestamp(%d) on files: %v", ts, err), nil
		}
		if fr.IndexTimestamp != mr.TimeEntry.Timestamp || fr.IndexOffset != mr.TimeEntry.Offset || fr.StartPosition != mr.Index.Position || fr.Found != mok ||
			(mok && (fr.FoundOffset < mr.Hit.BaseOffset || fr.FoundOffset > mr.Hit.LastOffset || fr.FoundTimestamp < ts)) {
			return "time-lookup", fmt.Sprintf("lookupTimestamp(%d): model {entry (%d, %d) start %d found %v batch %d..%d}, files {entry (%d, %d) start %d found %v offset %d ts %d}",
				ts, mr.TimeEntry.Timestamp, mr.TimeEntry.Offset, mr.Index.Position, mok, mr.Hit.BaseOffset, mr.Hit.LastOffset,
				fr.IndexTimestamp, fr.IndexOffset, fr.StartPosition, fr.Found, fr.FoundOffset, fr.FoundTimestamp), nil
		}
	}
	return "", "", nil
}
