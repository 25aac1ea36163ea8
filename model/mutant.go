package model

// Mutant deliberately breaks one of Kafka's rules. It exists to prove that the property
// checker has teeth: each mutant must be caught by at least one invariant (props' mutation
// tests). The zero value, Exact, is Kafka's behaviour; nothing else uses mutants.
type Mutant int

const (
	// Exact is Kafka's behaviour.
	Exact Mutant = iota
	// MutantGreaterOrEqual indexes when bytesSinceLastIndexEntry >= interval (Kafka: >).
	MutantGreaterOrEqual
	// MutantIncrementBeforeCheck adds the batch's size to the counter before the check
	// (Kafka checks first).
	MutantIncrementBeforeCheck
	// MutantEntryNamesBaseOffset makes an entry name the batch's (append's) base offset
	// (Kafka: the last offset).
	MutantEntryNamesBaseOffset
	// MutantEntryPositionAfterBatch makes an entry point after the batch (append) instead of
	// at its start.
	MutantEntryPositionAfterBatch
	// MutantTimeIndexOnEqual appends to the time index on an equal timestamp too (Kafka:
	// strictly greater).
	MutantTimeIndexOnEqual
	// MutantRollIgnoresAppendSize rolls on size alone once the segment is past segment.bytes,
	// ignoring the size of the append (Kafka: size > segment.bytes - appendSize).
	MutantRollIgnoresAppendSize
)

// Mutants lists every mutant but Exact.
var Mutants = []Mutant{MutantGreaterOrEqual, MutantIncrementBeforeCheck, MutantEntryNamesBaseOffset,
	MutantEntryPositionAfterBatch, MutantTimeIndexOnEqual, MutantRollIgnoresAppendSize}

// String names the mutant.
func (m Mutant) String() string {
	switch m {
	case Exact:
		return "exact"
	case MutantGreaterOrEqual:
		return ">= instead of >"
	case MutantIncrementBeforeCheck:
		return "increment before check"
	case MutantEntryNamesBaseOffset:
		return "entry names the base offset"
	case MutantEntryPositionAfterBatch:
		return "entry position after the batch"
	case MutantTimeIndexOnEqual:
		return "time index appends on equal timestamps"
	case MutantRollIgnoresAppendSize:
		return "roll ignores the append size"
	}
	return "unknown mutant"
}

// indexDue is the index check of LogSegment.append (strict >), or a mutant's.
func (m Mutant) indexDue(counter, interval int64) bool {
	if m == MutantGreaterOrEqual {
		return counter >= interval
	}
	return counter > interval
}

// entry returns the offset and position an entry gets for a batch (or append) spanning
// [base, last] at [pos, end).
func (m Mutant) entry(base, last, pos, end int64) (int64, int64) {
	switch m {
	case MutantEntryNamesBaseOffset:
		return base, pos
	case MutantEntryPositionAfterBatch:
		return last, end
	}
	return last, pos
}
