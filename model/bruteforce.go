package model

// BruteForceScan computes a segment's ScanStats the slow way: one full Lookup (Kafka's
// warm-section search, then a header walk, and the era's own count of header reads) for
// every offset. Tests use it to check the one-pass figures of Segment.Scan.
func BruteForceScan(s *Segment) ScanStats {
	var st ScanStats
	if len(s.batches) == 0 {
		return st
	}
	// Every offset a batch spans; offsets in gaps between batches (after compaction) hold
	// no record and are not looked up.
	for _, b := range s.batches {
		for o := b.BaseOffset; o <= b.LastOffset; o++ {
			r, ok := s.Lookup(o)
			if !ok {
				continue
			}
			st.Add(1, r.ScanBytes, r.Hops)
			st.TotalHeaderReads += r.HeaderReads
			st.MaxHeaderReads = max(st.MaxHeaderReads, r.HeaderReads)
		}
	}
	return st
}
