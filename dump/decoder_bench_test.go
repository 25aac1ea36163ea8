package dump

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kidx/internal/segmenttest"
)

// BenchmarkDumpOffsetsDecoder: kidx dump --offsets-decoder over a __consumer_offsets-like
// segment built here: 100,000 records in 5-record batches (a consumer committing 5
// partitions at once), an offset commit (v3) per record and, every 1,000 records, a classic
// consumer group's metadata (v3, 3 members with subscription and assignment bytes), each
// printed in the 4.1+ JSON and in 3.x's text. Reports records/s and MB/s of the .log.
func BenchmarkDumpOffsetsDecoder(b *testing.B) {
	const records, perBatch = 100_000, 5
	sub := (&kmsg.ConsumerMemberMetadata{Version: 3, Topics: []string{"orders", "payments"}, Generation: 4}).AppendTo(nil)
	asg := (&kmsg.ConsumerMemberAssignment{Version: 3, Topics: []kmsg.ConsumerMemberAssignmentTopic{{Topic: "orders", Partitions: []int32{0, 1, 2}}}}).AppendTo(nil)
	var members []kmsg.GroupMetadataValueMember
	for m := range 3 {
		id := fmt.Sprintf("consumer-app-%d-6a1c3b0e-55aa-4d8e-9e1f-%012d", m, m)
		members = append(members, kmsg.GroupMetadataValueMember{MemberID: id, ClientID: "consumer-app", ClientHost: "/10.0.0.7",
			RebalanceTimeoutMillis: 300000, SessionTimeoutMillis: 45000, Subscription: sub, Assignment: asg})
	}
	group := (&kmsg.GroupMetadataValue{Version: 3, ProtocolType: "consumer", Generation: 4, Protocol: kmsg.StringPtr("range"),
		Leader: kmsg.StringPtr(members[0].MemberID), CurrentStateTimestamp: 1700000000000, Members: members}).AppendTo(nil)
	groupKey := (&kmsg.GroupMetadataKey{Version: 2, Group: "app"}).AppendTo(nil)
	var log bytes.Buffer
	for base := 0; base < records; base += perBatch {
		var recs []segmenttest.Rec
		for i := range perBatch {
			o := base + i
			if o%1000 == 999 {
				recs = append(recs, segmenttest.Rec{OffDelta: int64(i), Key: groupKey, Value: group})
				continue
			}
			recs = append(recs, segmenttest.Rec{OffDelta: int64(i),
				Key:   (&kmsg.OffsetCommitKey{Version: 1, Group: "app", Topic: "orders", Partition: int32(o % perBatch)}).AppendTo(nil),
				Value: (&kmsg.OffsetCommitValue{Version: 3, Offset: int64(o), LeaderEpoch: 7, CommitTimestamp: 1700000000000 + int64(o)}).AppendTo(nil)})
		}
		log.Write(segmenttest.V2Batch(segmenttest.V2Hdr{Base: int64(base), LastDelta: perBatch - 1, BaseTs: 1700000000000, MaxTs: 1700000000000, BaseSeq: -1, Count: perBatch}, segmenttest.V2Records(recs)))
	}
	path := filepath.Join(b.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, log.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, era := range []DecoderEra{EraCoordinatorJSON, EraText} {
		b.Run(era.String(), func(b *testing.B) {
			b.SetBytes(int64(log.Len()))
			for b.Loop() {
				if err := File(io.Discard, path, Options{Decoder: DecodeOffsets, DecoderEra: era}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
