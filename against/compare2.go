package against

// Mismatch kinds of protocol 2's timestamp and segment queries (an error answered where kidx
// answers, or the other way round, is false-error or missed-error as for offset queries).
const (
	MismatchTimeStart     = "time-start"     // findOffsetByTimestamp's start position differs
	MismatchTimeOffset    = "time-offset"    // the record found (its offset, or none) differs
	MismatchTimeTimestamp = "time-timestamp" // the same record, another timestamp
	MismatchSegment       = "segment"        // floorSegment's segment differs
)

// mismatchProtocol2 judges a timestamp or segment answer that is not an error on either side;
// ok is false for every other answer (mismatch judges it as an offset answer).
func mismatchProtocol2(want, got Answer) (kind string, ok bool) {
	if want.Err != nil || got.Err != nil {
		return "", false
	}
	switch want.Kind {
	case KindTimestamp:
		switch {
		case got.Start != want.Start:
			return MismatchTimeStart, true
		case got.Offset != want.Offset:
			return MismatchTimeOffset, true
		case got.Timestamp != want.Timestamp:
			return MismatchTimeTimestamp, true
		}
		return "", true
	case KindSegment:
		if got.BaseOffset != want.BaseOffset {
			return MismatchSegment, true
		}
		return "", true
	}
	return "", false
}
