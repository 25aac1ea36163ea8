package sim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"kidx/model"
)

// A sizeDist draws a size in bytes (a batch's sizeInBytes, or a record value's size inside
// the producer model). Draws are deterministic from the distribution's PCG stream.
type sizeDist interface {
	draw() int64
}

type fixedDist struct{ bytes int64 }

func (d fixedDist) draw() int64 { return d.bytes }

// uniformDist draws min + r.Int64N(max-min+1).
type uniformDist struct {
	min, max int64
	r        *rand.Rand
}

func (d uniformDist) draw() int64 { return d.min + d.r.Int64N(d.max-d.min+1) }

// lognormalDist is gonum's distuv.LogNormal with mu = ln(median), so that half the draws
// fall below median; sigma is the spread of ln(size). Draws are rounded to whole bytes and
// capped at max.
type lognormalDist struct {
	d   distuv.LogNormal
	max int64
}

func (d lognormalDist) draw() int64 {
	return min(d.max, max(1, int64(math.Round(d.d.Rand()))))
}

// mixtureDist picks a component by weight for every draw.
type mixtureDist struct {
	cum   []float64 // cumulative weights, last = 1
	parts []sizeDist
	r     *rand.Rand
}

func (d mixtureDist) draw() int64 {
	u := d.r.Float64()
	for i, c := range d.cum {
		if u < c {
			return d.parts[i].draw()
		}
	}
	return d.parts[len(d.parts)-1].draw()
}

// burstyDist alternates burst phases and quiet phases of fixed lengths in batches.
type burstyDist struct {
	burst, quiet           sizeDist
	burstLen, quietLen, at int64
}

func (d *burstyDist) draw() int64 {
	i := d.at % (d.burstLen + d.quietLen)
	d.at++
	if i < d.burstLen {
		return d.burst.draw()
	}
	return d.quiet.draw()
}

// tinyDist is a linger.ms=0 producer under low traffic: batches of 1 to recordsMax records,
// each a DefaultRecord with a null key and a value of value.min..value.max bytes, encoded
// as the v2 format encodes it (see recordSize). It draws records and bytes together.
type tinyDist struct {
	recordsMax, vmin, vmax int64
	r                      *rand.Rand
	lastRecords            int64
}

func (d *tinyDist) draw() int64 {
	n := 1 + d.r.Int64N(d.recordsMax)
	size := int64(model.RecordBatchOverhead)
	for i := range n {
		size += recordSize(d.vmin+d.r.Int64N(d.vmax-d.vmin+1), -1, i, 0)
	}
	d.lastRecords = n
	return size
}

// A sizeFloor says what a distribution's sizes are: batch sizes (batch), which must be sizes
// a batch can have (model.PossibleBatchError), or record value sizes, which need not. records
// is the batch's fixed record count, 0 when it is derived from the size (then only the
// smallest batch, one record, bounds the size).
type sizeFloor struct {
	batch   bool
	records int64
}

// valueSizes is the floor of record value sizes: none.
var valueSizes = sizeFloor{}

// least is the smallest size the distribution may name explicitly.
func (f sizeFloor) least() int64 {
	if !f.batch {
		return 1
	}
	return model.MinBatchBytes(max(f.records, 1), model.NotLegacy)
}

// check refuses an explicit size (fixed's bytes, uniform's min and max, lognormal's max) no
// batch can have, saying the minimum: a requested impossible size is an error, not silently
// raised. Drawn sizes below the floor (a lognormal's low tail) are raised by sizeBatches.
func (f sizeFloor) check(n *specNode, key string, v int64) error {
	if !f.batch {
		return nil
	}
	var err error
	if f.records == 0 {
		if v < f.least() {
			err = model.PossibleBatchError(1, v, model.NotLegacy)
		}
	} else {
		err = model.PossibleBatchError(f.records, v, model.NotLegacy)
	}
	if err != nil {
		return fmt.Errorf("%s: %s=%d: %v", n.kind, key, v, err)
	}
	return nil
}

// buildSize builds a size distribution from a spec node; floor says whether it draws batch
// sizes (and for how many records) or record value sizes.
func buildSize(n *specNode, st *streams, floor sizeFloor) (sizeDist, error) {
	switch n.kind {
	case "fixed":
		b, err := n.int64("bytes", 16350, 1, math.MaxInt32)
		if err == nil {
			err = floor.check(n, "bytes", b)
		}
		return fixedDist{b}, err
	case "uniform":
		lo, err := n.int64("min", max(model.RecordBatchOverhead, floor.least()), 1, math.MaxInt32)
		if err == nil {
			err = floor.check(n, "min", lo)
		}
		if err != nil {
			return nil, err
		}
		hi, err := n.int64("max", max(16384, lo), lo, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		_, r := st.take()
		return uniformDist{lo, hi, r}, nil
	case "lognormal":
		med, err := n.int64("median", 16384, 1, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		sigma, err := n.float("sigma", 0.6, 0, 10)
		if err != nil {
			return nil, err
		}
		hi, err := n.int64("max", model.DefaultMaxMessageBytes, 1, math.MaxInt32)
		if err == nil {
			err = floor.check(n, "max", hi)
		}
		if err != nil {
			return nil, err
		}
		pcg, _ := st.take()
		return lognormalDist{distuv.LogNormal{Mu: math.Log(float64(med)), Sigma: sigma, Src: pcg}, hi}, nil
	case "tiny":
		rm, err := n.int64("records.max", 3, 1, 1000)
		if err != nil {
			return nil, err
		}
		vmin, err := n.int64("value.min", 10, 0, 1<<20)
		if err != nil {
			return nil, err
		}
		vmax, err := n.int64("value.max", 100, vmin, 1<<20)
		if err != nil {
			return nil, err
		}
		_, r := st.take()
		return &tinyDist{recordsMax: rm, vmin: vmin, vmax: vmax, r: r}, nil
	case "mixture":
		_, r := st.take()
		d := mixtureDist{r: r}
		var total float64
		for _, p := range n.parts {
			total += p.weight
		}
		var c float64
		for _, p := range n.parts {
			sub, err := buildSize(p.node, st, floor)
			if err != nil {
				return nil, err
			}
			c += p.weight / total
			d.cum = append(d.cum, c)
			d.parts = append(d.parts, sub)
		}
		d.cum[len(d.cum)-1] = 1
		return d, nil
	case "bursty":
		burst, err := nestedSize(n, "burst", "fixed(bytes=16384)", st, floor)
		if err != nil {
			return nil, err
		}
		quiet, err := nestedSize(n, "quiet", "tiny", st, floor)
		if err != nil {
			return nil, err
		}
		bl, err := n.int64("burst.batches", 100, 1, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		ql, err := n.int64("quiet.batches", 900, 0, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		return &burstyDist{burst: burst, quiet: quiet, burstLen: bl, quietLen: ql}, nil
	}
	return nil, fmt.Errorf("%s is not a size distribution", n.kind)
}

func nestedSize(n *specNode, key, def string, st *streams, floor sizeFloor) (sizeDist, error) {
	v, ok := n.params[key]
	if !ok {
		v = def
	}
	sub, err := parseSpec(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %s=%s: %w", n.kind, key, v, err)
	}
	if !sizeKinds[sub.kind] {
		return nil, fmt.Errorf("%s: %s=%s: not a size distribution", n.kind, key, v)
	}
	return buildSize(sub, st, floor)
}

// varintSize is the length of a zig-zag varint (ByteUtils.sizeOfVarint / sizeOfVarlong).
func varintSize(v int64) int64 {
	u := uint64((v << 1) ^ (v >> 63))
	n := int64(1)
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// recordSize is DefaultRecord.sizeInBytes for a record with no headers: a varint body
// length, then attributes (1), timestampDelta (varlong), offsetDelta (varint), key length
// (varint, -1 for a null key) and key, value length (varint) and value, header count
// (varint 0).
func recordSize(valueBytes, keyBytes, offsetDelta, tsDelta int64) int64 {
	body := 1 + varintSize(tsDelta) + varintSize(offsetDelta) + varintSize(keyBytes) + max(keyBytes, 0) +
		varintSize(valueBytes) + valueBytes + 1
	return varintSize(body) + body
}
