package corpus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"kidx/model"
	"kidx/segment"
)

// Damage kinds: the parser fuzzers' mutations (fuzz/parsers, fuzz/mutation_test.go), applied
// to one file of a written case.
const (
	DamageLogTruncated      = "log-truncated-in-batch"    // .log cut inside a batch
	DamageIndexTruncated    = "index-truncated-mid-entry" // .index cut inside an 8-byte entry
	DamageLiveZeroTail      = "live-index-zero-tail"      // zeros appended to the active segment's indexes
	DamageHeaderByteFlip    = "batch-header-byte-flip"    // one byte of a batch header inverted
	DamageHostileLength     = "hostile-length"            // a batch's length field set to a hostile value
	DamageIndexOutOfOrder   = "index-out-of-order"        // two adjacent .index entries swapped
	damageKinds             = 6
	recordBatchHeaderLength = 61 // v2 batch header (docs/kafka.md §1)
)

// DamageKinds lists the kinds in the order they are drawn.
var DamageKinds = []string{DamageLogTruncated, DamageIndexTruncated, DamageLiveZeroTail, DamageHeaderByteFlip,
	DamageHostileLength, DamageIndexOutOfOrder}

// Damage is what was done to a damaged case: the kind, the file (relative to the case
// directory) and the first byte changed (for a truncation, the new length; for an appended
// tail, the old length).
type Damage struct {
	Kind string `json:"kind"`
	File string `json:"file"`
	Byte int64  `json:"byte"`
	// Detail says what was written, e.g. the hostile length value.
	Detail string `json:"detail,omitempty"`
}

// hostileLengths are batch length fields a reader must not trust: below the v2 overhead,
// below the minimum record overhead, negative, past any file, and -12, which makes a reader
// that steps by 12 + length without checking it stand still (the seed post's reader,
// docs/background.md, hangs).
var hostileLengths = []int32{0, 1, 11, 48, -1, -2147483648, 2147483647, -12}

// damage applies kind to the partition directory part, on a segment drawn among those that
// can take it; a kind none can take is replaced by one drawn among those some segment can
// (the .log kinds fit any segment with a batch, and every case has one).
func damage(rng *rand.Rand, kind string, allowed []string, part string, segs []*model.Segment) (*Damage, *DamagePlan, error) {
	fit := targets(kind, segs)
	if len(fit) == 0 {
		var kinds []string
		for _, k := range allowed {
			if len(targets(k, segs)) > 0 {
				kinds = append(kinds, k)
			}
		}
		if len(kinds) == 0 { // only kinds this case cannot take were asked for: it stays whole
			return nil, nil, nil
		}
		kind = kinds[rng.IntN(len(kinds))]
		fit = targets(kind, segs)
	}
	p := &DamagePlan{Kind: kind, Target: rng.IntN(len(fit)), Pick: rng.Uint64()}
	d, err := p.apply(part, segs)
	return d, p, err
}

// DamagePlan is a damage as drawn, before it meets a case: the kind, which of the segments
// that can take it (Target, counted among them), and the number the damage draws its place
// from. Applied to the workload it was drawn for, it does what the case's Damage says;
// applied to a smaller workload (kidx diff --against shrinks one), it does the same kind of
// damage to the last fitting segment at or before Target.
type DamagePlan struct {
	Kind   string
	Target int
	Pick   uint64
}

// ErrDamageDoesNotFit is DamagePlan.apply's error when no segment can take the damage.
var ErrDamageDoesNotFit = errors.New("no segment can take the damage")

// apply damages the partition directory part, whose model segments are segs.
func (p *DamagePlan) apply(part string, segs []*model.Segment) (*Damage, error) {
	fit := targets(p.Kind, segs)
	if len(fit) == 0 {
		return nil, ErrDamageDoesNotFit
	}
	return apply(p.Kind, part, segs[fit[min(p.Target, len(fit)-1)]], p.Pick)
}

// targets are the segments that can take kind.
func targets(kind string, segs []*model.Segment) []int {
	var fit []int
	for i, ms := range segs {
		if takes(kind, ms, i == len(segs)-1) {
			fit = append(fit, i)
		}
	}
	return fit
}

// takes reports whether segment ms can take the kind of damage.
func takes(kind string, ms *model.Segment, active bool) bool {
	switch kind {
	case DamageLiveZeroTail:
		// A single time-index entry (0, base offset) is all zeros: with a zero tail after it,
		// the file cannot tell it from no entry (segment.validSlots reads no entry there);
		// such a case would ask a reader to guess.
		te := ms.TimeIndex().All()
		return active && !(len(te) > 0 && te[0].Timestamp == 0 && te[0].Offset == ms.BaseOffset())
	case DamageIndexTruncated:
		return len(ms.OffsetIndex().All()) > 0
	case DamageIndexOutOfOrder:
		return len(ms.OffsetIndex().All()) > 1
	}
	return len(ms.Batches()) > 0
}

// apply damages segment ms with kind, drawing what it needs from pick.
func apply(kind, part string, ms *model.Segment, pick uint64) (*Damage, error) {
	stem := filepath.Join(part, segment.FilenamePrefixFromOffset(ms.BaseOffset()))
	rel := func(suffix string) string {
		return filepath.Join(Partition, segment.FilenamePrefixFromOffset(ms.BaseOffset())+suffix)
	}
	batches := ms.Batches()
	entries := ms.OffsetIndex().All()
	switch kind {
	case DamageLogTruncated:
		b := batches[pick%uint64(len(batches))]
		cut := b.Position + 1 + int64(pick>>8)%(b.Size-1)
		return &Damage{Kind: kind, File: rel(segment.LogSuffix), Byte: cut}, os.Truncate(stem+segment.LogSuffix, cut)
	case DamageIndexTruncated:
		cut := int64(pick%uint64(len(entries)))*8 + 1 + int64(pick>>8)%7
		return &Damage{Kind: kind, File: rel(segment.IndexSuffix), Byte: cut}, os.Truncate(stem+segment.IndexSuffix, cut)
	case DamageLiveZeroTail:
		// Kafka preallocates the active segment's indexes (segment.index.bytes) and trims
		// them on roll and close (docs/kafka.md §4): a zero tail on the last segment is a
		// live index, healthy; on any other it would not be.
		n := 1 + int64(pick%64)
		size := int64(len(ms.OffsetIndex().All())) * 8
		if err := appendZeros(stem+segment.IndexSuffix, n*8); err != nil {
			return nil, err
		}
		if err := appendZeros(stem+segment.TimeIndexSuffix, n*12); err != nil {
			return nil, err
		}
		return &Damage{Kind: kind, File: rel(segment.IndexSuffix), Byte: size,
			Detail: "zero tails of the same slot count on the .index and the .timeindex"}, nil
	case DamageHeaderByteFlip, DamageHostileLength:
		b := batches[pick%uint64(len(batches))]
		path := stem + segment.LogSuffix
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		d := &Damage{Kind: kind, File: rel(segment.LogSuffix)}
		if kind == DamageHeaderByteFlip {
			d.Byte = b.Position + int64(pick>>8)%recordBatchHeaderLength
			data[d.Byte] ^= 0xff
		} else {
			d.Byte = b.Position + 8 // batchLength follows the 8-byte base offset
			v := hostileLengths[(pick>>8)%uint64(len(hostileLengths))]
			binary.BigEndian.PutUint32(data[d.Byte:], uint32(v))
			d.Detail = "length " + itoa(int64(v))
		}
		return d, os.WriteFile(path, data, 0o644)
	case DamageIndexOutOfOrder:
		j := 1 + int(pick%uint64(len(entries)-1))
		path := stem + segment.IndexSuffix
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		a, b := data[(j-1)*8:j*8], data[j*8:(j+1)*8]
		var tmp [8]byte
		copy(tmp[:], a)
		copy(a, b)
		copy(b, tmp[:])
		return &Damage{Kind: kind, File: rel(segment.IndexSuffix), Byte: int64(j-1) * 8, Detail: "entries " + itoa(int64(j-1)) + " and " + itoa(int64(j)) + " swapped"},
			os.WriteFile(path, data, 0o644)
	}
	return nil, fmt.Errorf("unknown damage kind %q", kind)
}

func appendZeros(path string, n int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(make([]byte, n)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
