package sim

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"kidx/model"
)

// Kafka producer defaults (ProducerConfig, docs/kafka.md §9). linger.ms is 5 from the 4.0
// clients on (KAFKA-16368) and 0 before; the model takes the 4.x value unless told.
const (
	DefaultBatchSize      = 16384
	DefaultLingerMs       = 5
	DefaultMaxRequestSize = 1048576
)

// producer models the Kafka producer's RecordAccumulator for one partition: records arrive
// as a Poisson process (exponential gaps at rate records/ms), each with a value size drawn
// from the record distribution. A record joins the open batch unless the batch would then
// exceed batch.size (a record larger than batch.size gets a batch of its own, as
// RecordAccumulator.append allocates max(batch.size, record) bytes), or linger.ms has passed
// since the batch's first record (the sender drains it), or the batch would exceed
// max.request.size. Sizes follow the v2 format: a 61-byte header plus DefaultRecord
// encodings (varint lengths, deltas against the batch's first record), with the records
// section scaled by compression.ratio. A batch's max timestamp is its last record's
// CreateTime: the clock is monotonic, so the last record has the largest.
//
// Simplification (docs/workloads.md): the sender is never busy, so with linger.ms=0 a batch
// holds the records that arrive within the same millisecond as its first one.
type producer struct {
	gap               distuv.Exponential
	record            sizeDist
	batchSize, maxReq int64
	linger            float64
	ratio             float64
	keyBytes          int64
	tsStart           int64
	now               float64 // ms since start: the next record's arrival
	pendingValue      int64   // the record that arrived but did not fit the last batch
	pending           bool
	clockMs           int64
}

func (p *producer) arrive() int64 {
	p.now += p.gap.Rand()
	return p.record.draw()
}

func (p *producer) next(_ int64, b *model.Batch) bool {
	if !p.pending {
		p.pendingValue, p.pending = p.arrive(), true
	}
	first := p.now
	firstMs := int64(first)
	var recordsBytes, n int64
	lastMs := firstMs
	for {
		v := p.pendingValue
		rs := recordSize(v, p.keyBytes, n, int64(p.now)-firstMs)
		size := model.RecordBatchOverhead + int64(math.Ceil(float64(recordsBytes+rs)*p.ratio))
		if n > 0 && (size > p.batchSize || size > p.maxReq) {
			break
		}
		recordsBytes += rs
		n++
		lastMs = int64(p.now)
		p.pendingValue = p.arrive()
		// linger.ms=0: only records of the same millisecond join (see the type comment).
		if p.now-first > p.linger || (p.linger == 0 && int64(p.now) != firstMs) {
			break
		}
	}
	p.clockMs = lastMs
	// compression.ratio scales the records section, but never below the smallest batch of n
	// records: a real codec's framing keeps tiny batches from shrinking further.
	*b = model.Batch{Records: n, Bytes: min(model.PossibleBytes(n, model.RecordBatchOverhead+int64(math.Ceil(float64(recordsBytes)*p.ratio))), math.MaxInt32),
		MaxTimestamp: p.tsStart + lastMs}
	return true
}

func buildProducer(n *specNode, st *streams) (*producer, error) {
	rate := 1.0 // records per ms
	if v, ok := n.params["rate"]; ok {
		r, err := parseRate(v)
		if err != nil {
			return nil, fmt.Errorf("producer: rate=%s: %v", v, err)
		}
		rate = r
	}
	p := &producer{}
	var err error
	if p.batchSize, err = n.int64("batch.size", DefaultBatchSize, 0, math.MaxInt32); err != nil {
		return nil, err
	}
	lingerMs, err := n.int64("linger.ms", DefaultLingerMs, 0, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	p.linger = float64(lingerMs)
	if p.maxReq, err = n.int64("max.request.size", DefaultMaxRequestSize, model.RecordBatchOverhead+8, math.MaxInt32); err != nil {
		return nil, err
	}
	if p.ratio, err = n.float("compression.ratio", 1, 0.01, 1); err != nil {
		return nil, err
	}
	if p.keyBytes, err = n.int64("key.bytes", -1, -1, 1<<20); err != nil {
		return nil, err
	}
	if p.tsStart, err = n.int64("ts.start", DefaultTimestampStart, 0, math.MaxInt64/2); err != nil {
		return nil, err
	}
	pcg, _ := st.take()
	p.gap = distuv.Exponential{Rate: rate, Src: pcg}
	if p.record, err = nestedSize(n, "record", "lognormal(median=300,sigma=0.5)", st, valueSizes); err != nil {
		return nil, err
	}
	return p, nil
}
