package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/rawlog"
	"kidx/internal/realdata"
	"kidx/internal/testfiles"
)

// The teeth of the real-data verify test: on copies of the real directories, planted damage
// is still reported (file and byte, severity error or warning), and the undamaged copy is
// still judged as the original is (so the damage test is not satisfied by false alarms).

// damagePlan is one planted damage: the file changed, the byte a finding must name, and what
// was done.
type damagePlan struct {
	file  string // base name of the damaged file in the partition directory
	pos   int64
	what  string
	apply func(t *testing.T, dir string) // damages the copy dir
}

type damageKind struct {
	name string
	// plan picks the damage for a partition directory from the brute-force reading of its
	// files; a nil plan says why the damage does not apply there.
	plan func(segs []*rawlog.Segment) (*damagePlan, string)
}

// rawSegments reads every segment with a .log of dir with internal/rawlog.
func rawSegments(t *testing.T, dir string) []*rawlog.Segment {
	t.Helper()
	var out []*rawlog.Segment
	for _, l := range realdata.LogFiles(dir) {
		s, err := rawlog.OpenSegment(l)
		if err != nil {
			t.Fatalf("%s: brute force: %v", l, err)
		}
		out = append(out, s)
	}
	return out
}

// indexNote says why no index of segs has what a damage needs.
func indexNote(segs []*rawlog.Segment, need string) string {
	n, trimmed := 0, 0
	for _, s := range segs {
		if s.Index != nil {
			n++
			if !s.Index.ZeroTail() {
				trimmed++
			}
		}
	}
	switch {
	case n == 0:
		return "no .index beside a .log"
	case need == "zero tail":
		return fmt.Sprintf("every .index beside a .log is trimmed (%d)", trimmed)
	default:
		return fmt.Sprintf("no .index beside a .log has %s (%d .index files, each empty or all zero, or with fewer)", need, n)
	}
}

// mostIndexed is the segment with a .log having the most valid index entries (at least min).
func mostIndexed(segs []*rawlog.Segment, min int) *rawlog.Segment {
	var best *rawlog.Segment
	for _, s := range segs {
		if s.Index != nil && len(s.Index.Entries) >= min && (best == nil || len(s.Index.Entries) > len(best.Index.Entries)) {
			best = s
		}
	}
	return best
}

var damageKinds = []damageKind{
	{"flipped-record-byte", func(segs []*rawlog.Segment) (*damagePlan, string) {
		// The segment with the most batches; its middle batch that has record bytes. The CRC
		// (v2: CRC-32C at +17 over [21, end); legacy: CRC-32 at +12 over [16, end)) no longer
		// matches: the finding names the CRC field.
		var seg *rawlog.Segment
		for _, s := range segs {
			if seg == nil || len(s.Log.Batches) > len(seg.Log.Batches) {
				seg = s
			}
		}
		if seg == nil || len(seg.Log.Batches) == 0 {
			return nil, "no batch: every .log is empty"
		}
		bs := seg.Log.Batches
		for d := 0; d < len(bs); d++ {
			for _, k := range []int{len(bs)/2 + d, len(bs)/2 - d} {
				if k < 0 || k >= len(bs) {
					continue
				}
				b := bs[k]
				var at, crcAt int64
				switch {
				case b.Magic == 2 && b.Size > 61:
					at, crcAt = b.Position+61+(b.Size-61)/2, b.Position+17
				case b.Magic < 2:
					at, crcAt = b.Position+b.Size-1, b.Position+12 // the value's last byte
				default:
					continue
				}
				logName := filepath.Base(seg.Log.Path)
				return &damagePlan{file: logName, pos: crcAt,
					what: fmt.Sprintf("byte %d of %s (batch %d of %d at %d, magic %d) flipped", at, logName, k, len(bs), b.Position, b.Magic),
					apply: func(t *testing.T, dir string) {
						p := filepath.Join(dir, logName)
						testfiles.WriteAt(t, p, at, []byte{testfiles.ReadAt(t, p, at, 1)[0] ^ 0xff})
					}}, ""
			}
		}
		return nil, "no batch with record bytes"
	}},
	{"truncated-last-batch", func(segs []*rawlog.Segment) (*damagePlan, string) {
		// The last segment with a batch (the active one, as after a crash mid-write): cut
		// in the middle of its last batch. The finding names where that batch starts.
		for i := len(segs) - 1; i >= 0; i-- {
			bs := segs[i].Log.Batches
			if len(bs) == 0 {
				continue
			}
			b := bs[len(bs)-1]
			logName := filepath.Base(segs[i].Log.Path)
			cut := b.Position + b.Size/2
			return &damagePlan{file: logName, pos: b.Position,
				what: fmt.Sprintf("%s truncated to %d bytes, inside its last batch [%d, %d)", logName, cut, b.Position, b.End()),
				apply: func(t *testing.T, dir string) {
					if err := os.Truncate(filepath.Join(dir, logName), cut); err != nil {
						t.Fatal(err)
					}
				}}, ""
		}
		return nil, "no batch: every .log is empty"
	}},
	{"entry-past-log", func(segs []*rawlog.Segment) (*damagePlan, string) {
		// A valid entry's position rewritten to 4096 bytes past the end of the log: the
		// finding names the entry's position field, slot*8+4.
		seg := mostIndexed(segs, 1)
		if seg == nil {
			return nil, indexNote(segs, "a valid entry")
		}
		e := seg.Index.Entries[len(seg.Index.Entries)/2]
		name := filepath.Base(seg.Index.Path)
		past := int64(len(seg.Log.Data)) + 4096
		return &damagePlan{file: name, pos: int64(e.Slot)*8 + 4,
			what: fmt.Sprintf("slot %d of %s (%d, %d) rewritten to position %d (log: %d bytes)", e.Slot, name, e.Offset, e.Position, past, len(seg.Log.Data)),
			apply: func(t *testing.T, dir string) {
				testfiles.WriteAt(t, filepath.Join(dir, name), int64(e.Slot)*8+4, binary.BigEndian.AppendUint32(nil, uint32(past)))
			}}, ""
	}},
	{"swapped-entries", func(segs []*rawlog.Segment) (*damagePlan, string) {
		// Two adjacent valid entries swapped: the second slot now goes backwards; the finding
		// names it, (i+1)*8.
		seg := mostIndexed(segs, 2)
		if seg == nil {
			return nil, indexNote(segs, "two valid entries")
		}
		i := len(seg.Index.Entries)/2 - 1
		a, b := seg.Index.Entries[i], seg.Index.Entries[i+1]
		name := filepath.Base(seg.Index.Path)
		return &damagePlan{file: name, pos: int64(b.Slot) * 8,
			what: fmt.Sprintf("slots %d (%d, %d) and %d (%d, %d) of %s swapped", a.Slot, a.Offset, a.Position, b.Slot, b.Offset, b.Position, name),
			apply: func(t *testing.T, dir string) {
				p := filepath.Join(dir, name)
				sa, sb := testfiles.ReadAt(t, p, int64(a.Slot)*8, 8), testfiles.ReadAt(t, p, int64(b.Slot)*8, 8)
				testfiles.WriteAt(t, p, int64(a.Slot)*8, sb)
				testfiles.WriteAt(t, p, int64(b.Slot)*8, sa)
			}}, ""
	}},
	{"bogus-entry-in-zero-tail", func(segs []*rawlog.Segment) (*damagePlan, string) {
		// A live (untrimmed) index: a non-zero 8-byte entry written 7 slots into its zero
		// tail. The preallocated tail of a live index is zeros; the finding names the slot.
		var seg *rawlog.Segment
		for _, s := range segs {
			if s.Index != nil && s.Index.ZeroTail() && s.Index.End+7 < s.Index.Slots {
				seg = s
			}
		}
		if seg == nil {
			return nil, indexNote(segs, "zero tail")
		}
		slot := seg.Index.End + 7
		name := filepath.Base(seg.Index.Path)
		bogus := []byte{0x00, 0x01, 0x23, 0x45, 0x00, 0x05, 0x43, 0x21}
		return &damagePlan{file: name, pos: int64(slot) * 8,
			what: fmt.Sprintf("slot %d of %s (valid entries end at slot %d of %d) set to % x", slot, name, seg.Index.End, seg.Index.Slots, bogus),
			apply: func(t *testing.T, dir string) {
				testfiles.WriteAt(t, filepath.Join(dir, name), int64(slot)*8, bogus)
			}}, ""
	}},
}

// TestRealDataDamageIsReported plants each kind of damage in a copy of every real directory
// where it applies and requires `kidx verify --deep` to exit 1 with an error or warning
// finding on the damaged file at the damaged byte. The undamaged copy must be judged as the
// original (the expectations of TestRealDataCLI/verify-deep).
func TestRealDataDamageIsReported(t *testing.T) {
	root := realdata.Restore(t)
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d", len(dirs), realdata.PartitionCount)
	}
	var summary []string
	for _, dir := range dirs {
		name := realdata.Name(root, dir)
		var line []string
		t.Run(name, func(t *testing.T) {
			t.Run("undamaged", func(t *testing.T) {
				cp := realdata.CopyDir(t, dir)
				doc, code := verifyJSON(t, "--deep", cp)
				for _, w := range judgeVerify(name, cp, doc, code) {
					t.Errorf("undamaged copy of %s: %s", name, w)
				}
			})
			segs := rawSegments(t, dir)
			for _, k := range damageKinds {
				plan, why := k.plan(segs)
				if plan == nil {
					line = append(line, fmt.Sprintf("%s n/a (%s)", k.name, why))
					continue
				}
				ok := t.Run(k.name, func(t *testing.T) {
					cp := realdata.CopyDir(t, dir)
					plan.apply(t, cp)
					doc, code := verifyJSON(t, "--deep", cp)
					want := filepath.Join(cp, plan.file)
					found, infos := false, 0
					var onFile []verifyFinding
					for _, f := range doc.Findings {
						if sameFile(f.File, want) {
							if !f.problem() {
								infos++
								continue
							}
							onFile = append(onFile, f)
							found = found || f.Pos == plan.pos
						}
					}
					if code != 1 || !found {
						t.Errorf("%s: %s\n  verify --deep exit %d; want exit 1 and an error/warning finding on %s at byte %d; %d info findings on that file, and these problems:%s",
							name, plan.what, code, plan.file, plan.pos, infos, listFindings(onFile))
					}
				})
				res := "reported"
				if !ok {
					res = "NOT REPORTED"
				}
				line = append(line, fmt.Sprintf("%s %s (%s at %d)", k.name, res, plan.file, plan.pos))
			}
		})
		summary = append(summary, name+": "+strings.Join(line, "; "))
	}
	t.Logf("damage per directory:\n%s", strings.Join(summary, "\n"))
}
