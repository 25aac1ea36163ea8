package model

// BruteForceScan computes a segment's ScanStats the slow way: one full Lookup (Kafka's
// warm-section search, then a header walk) for every offset. Tests use it to check the
// one-pass figures of Segment.Scan.
func BruteForceScan(s *Segment) ScanStats {
	var st ScanStats
	if len(s.batches) == 0 {
		return st
	}
	for o := s.batches[0].BaseOffset; o <= s.LastOffset(); o++ {
		r, ok := s.Lookup(o)
		if !ok {
			continue
		}
		st.Add(1, r.ScanBytes, r.Hops)
	}
	return st
}
