package segment

import "testing"

// KRaft snapshot names. Vectors: DumpLogSegmentsTest.testDumpMetadataSnapshot's
// "00000000000000000000-0000000000.checkpoint" (end offset 0, epoch 0), the two real snapshots
// of ronem/__cluster_metadata-0, and the suffixes of Snapshots.java.
func TestKRaftSnapshotNames(t *testing.T) {
	for _, c := range []struct {
		name          string
		off           int64
		epoch         int32
		ok            bool // ParseKRaftSnapshotName
		file          bool // ParseKRaftSnapshotFile
		partial, dele bool
	}{
		{"00000000000000000000-0000000000.checkpoint", 0, 0, true, true, false, false},
		{"00000000000000852953-0000000001.checkpoint", 852953, 1, true, true, false, false},
		{"00000000000001734780-0000000001.checkpoint", 1734780, 1, true, true, false, false},
		{"09223372036854775807-2147483647.checkpoint", 9223372036854775807, 2147483647, true, true, false, false},
		{"00000000000000000100-0000000003.checkpoint.deleted", 100, 3, false, true, false, true},
		{"00000000000000000100-0000000003.checkpoint.part", 100, 3, false, true, true, false},
		{"00000000000000000100-0000000003-4418512883185372387.checkpoint.part", 100, 3, false, true, true, false},
		{"bootstrap.checkpoint", 0, 0, false, false, false, false},
		{"00000000000000000100-0000000003.checkpointx", 0, 0, false, false, false, false},
		{"0000000000000000100-0000000003.checkpoint", 0, 0, false, false, false, false},  // 19 digits
		{"00000000000000000100_0000000003.checkpoint", 0, 0, false, false, false, false}, // no '-'
		{"00000000000000000100-000000003a.checkpoint", 0, 0, false, false, false, false},
		{"99999999999999999999-0000000003.checkpoint", 0, 0, false, false, false, false}, // past int64
		{"00000000000000000100-9999999999.checkpoint", 0, 0, false, false, false, false}, // past int32
		{"00000000000000000100-0000000003-.checkpoint.part", 0, 0, false, false, false, false},
		{"00000000000000000100-0000000003", 0, 0, false, false, false, false},
		{"", 0, 0, false, false, false, false},
	} {
		off, epoch, ok := ParseKRaftSnapshotName(c.name)
		if ok != c.ok || (ok && (off != c.off || epoch != c.epoch)) {
			t.Errorf("ParseKRaftSnapshotName(%q) = %d, %d, %v", c.name, off, epoch, ok)
		}
		f, ok := ParseKRaftSnapshotFile(c.name)
		if ok != c.file || (ok && f != (KRaftSnapshotFile{c.off, c.epoch, c.partial, c.dele})) {
			t.Errorf("ParseKRaftSnapshotFile(%q) = %+v, %v", c.name, f, ok)
		}
	}
	if n := KRaftSnapshotFileName(852953, 1); n != "00000000000000852953-0000000001.checkpoint" {
		t.Fatal(n)
	}
}
