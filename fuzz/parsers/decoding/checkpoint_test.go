package decoding

import (
	"fmt"
	"strings"
	"testing"

	"kidx/fuzz/internal/parsecheck"
	"kidx/segment"
)

// FuzzCheckpointFiles: arbitrary bytes through every text parser of a log directory:
// leader-epoch-checkpoint and the offset checkpoints (CheckpointFile), partition.metadata,
// meta.properties, quorum-state, .kafka_cleanshutdown. Checked: no panic, bounded allocation,
// errors inside the input; an accepted checkpoint written back here in Kafka's format
// (CheckpointWriteBuffer) parses to the same entries; an accepted partition.metadata has a
// non-zero topic id and written back (PartitionMetadata.encode) parses to the same.
func FuzzCheckpointFiles(f *testing.F) {
	for _, s := range []string{
		"0\n1\n0 0\n", "0\n3\n0 0\n2 3\n10 4\n", "0\n1\n1 852953\n", "0\n0\n", "", "0\n2147483647\n0 0\n", "0\n-1\n", " 0 0\n",
		"0\n3\n__consumer_offsets 28 2\n__consumer_offsets 17 1\n__consumer_offsets 39 18\n", "0\r\n1\r\nfoo 1 5\r\n",
		"version: 0\ntopic_id: YEO9-o88S26CT6OkgrVHXA", "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n",
		"#\n#Fri Jan 30 16:43:51 UTC 2026\nnode.id=1\ndirectory.id=XHhkr4tkSsD900pOQ8pPfg\nversion=1\ncluster.id=q1w2e3r4t5y6u7i8o9p0\n",
		"#\nversion=0\nbroker.id=0\n", "a\\\n  b=c\\u0041\\", "cluster.id=\\u00zz",
		`{"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}`,
		`{"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`,
		`{"version":0,"brokerEpoch":11}`,
	} {
		f.Add([]byte(s))
	}
	names := map[string]bool{segment.LeaderEpochCheckpointName: true, segment.RecoveryPointCheckpointName: true, segment.ReplicationCheckpointName: true,
		segment.LogStartOffsetCheckpointName: true, segment.CleanerOffsetCheckpointName: true, segment.PartitionMetadataName: true,
		segment.MetaPropertiesName: true, segment.QuorumStateName: true, segment.CleanShutdownName: true}
	seen := map[string]bool{}
	for _, b := range parsecheck.RealLogDirFiles(f, func(n string) bool { return names[n] }, 200) {
		if !seen[string(b)] {
			seen[string(b)] = true
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := len(data)
		measure := parsecheck.SampleOf(data, 0).Alloc
		var les []segment.EpochEntry
		var err error
		parsecheck.CheckAlloc(t, measure, "ParseLeaderEpochCheckpoint", n, func() { les, err = segment.ParseLeaderEpochCheckpoint(data, "lec") })
		parsecheck.CheckFormatErr(t, "ParseLeaderEpochCheckpoint", err, "lec", n)
		if err == nil {
			var b strings.Builder
			fmt.Fprintf(&b, "0\n%d\n", len(les))
			for _, e := range les {
				fmt.Fprintf(&b, "%d %d\n", e.Epoch, e.StartOffset)
			}
			back, err := segment.ParseLeaderEpochCheckpoint([]byte(b.String()), "re")
			if err != nil || fmt.Sprint(back) != fmt.Sprint(les) {
				t.Fatalf("%q read as %v, written back as %q: %v %v", data, les, b.String(), back, err)
			}
		}
		var ocs []segment.OffsetCheckpointEntry
		parsecheck.CheckAlloc(t, measure, "ParseOffsetCheckpoint", n, func() { ocs, err = segment.ParseOffsetCheckpoint(data, "oc") })
		parsecheck.CheckFormatErr(t, "ParseOffsetCheckpoint", err, "oc", n)
		if err == nil {
			var b strings.Builder
			fmt.Fprintf(&b, "0\n%d\n", len(ocs))
			for _, e := range ocs {
				fmt.Fprintf(&b, "%s %d %d\n", e.Topic, e.Partition, e.Offset)
			}
			back, err := segment.ParseOffsetCheckpoint([]byte(b.String()), "re")
			if err != nil || fmt.Sprint(back) != fmt.Sprint(ocs) {
				t.Fatalf("%q read as %v, written back as %q: %v %v", data, ocs, b.String(), back, err)
			}
		}
		var pm segment.PartitionMetadata
		parsecheck.CheckAlloc(t, measure, "ParsePartitionMetadata", n, func() { pm, err = segment.ParsePartitionMetadata(data, "pm") })
		parsecheck.CheckFormatErr(t, "ParsePartitionMetadata", err, "pm", n)
		if err == nil {
			back, err := segment.ParsePartitionMetadata([]byte(fmt.Sprintf("version: %d\ntopic_id: %s", pm.Version, pm.TopicID)), "re")
			if pm.TopicID.IsZero() || pm.Version < 0 || err != nil || back != pm {
				t.Fatalf("%q read as %+v; written back: %+v %v", data, pm, back, err)
			}
		}
		parsecheck.CheckAlloc(t, measure, "ParseMetaProperties", n, func() { _, err = segment.ParseMetaProperties(data, "mp") })
		parsecheck.CheckFormatErr(t, "ParseMetaProperties", err, "mp", n)
		parsecheck.CheckAllocN(t, measure, "ParseQuorumState", n, parsecheck.JSONAllocFactor, func() { _, err = segment.ParseQuorumState(data, "qs") })
		parsecheck.CheckFormatErr(t, "ParseQuorumState", err, "qs", n)
		parsecheck.CheckAllocN(t, measure, "ParseCleanShutdown", n, parsecheck.JSONAllocFactor, func() { _ = segment.ParseCleanShutdown(data) })
	})
}
