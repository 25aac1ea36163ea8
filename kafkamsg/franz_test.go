package kafkamsg

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kidx/internal/realdata"
)

// franz-go's kmsg, written independently of Kafka's generator, has the offsets and
// transaction records: every real __consumer_offsets and __transaction_state record read by
// kmsg, and its JSON written here field by field from the definitions (which fields each
// version has, which are tagged), must equal kafkamsg's.
func TestRealCoordinatorRecordsAgreeWithFranz(t *testing.T) {
	root := realdata.Stored(t)
	compared := 0
	for _, fam := range []struct {
		prefix string
		f      Family
	}{{"__consumer_offsets-", GroupCoordinator}, {"__transaction_state-", TransactionCoordinator}} {
		for part, files := range filesOf(t, root, fam.prefix) {
			for _, f := range files {
				for _, rec := range recordsOf(t, f) {
					if rec.control {
						continue
					}
					typ := int16(binary.BigEndian.Uint16(rec.key))
					wantKey, wantValue := franzJSON(t, fam.f, typ, rec.key, rec.value)
					k, err := CoordinatorKey(fam.f, typ, rec.key[2:])
					if err != nil || JSON(k) != wantKey {
						t.Fatalf("%s: key %s (%v), franz-go %s", part, JSON(k), err, wantKey)
					}
					if rec.value == nil {
						continue
					}
					v, err := CoordinatorValue(fam.f, typ, int16(binary.BigEndian.Uint16(rec.value)), rec.value[2:])
					if err != nil || JSON(v) != wantValue {
						t.Fatalf("%s: value\n%s (%v)\nfranz-go\n%s", part, JSON(v), err, wantValue)
					}
					compared++
				}
			}
		}
	}
	if compared == 0 {
		t.Fatal("nothing compared")
	}
	t.Logf("%d key/value pairs agree with franz-go", compared)
}

func q(s string) string { return JSON(String(s)) }

func qp(s *string) string {
	if s == nil {
		return "null"
	}
	return q(*s)
}

// franzJSON is the JSON of a record as written here from kmsg's fields.
func franzJSON(t *testing.T, f Family, typ int16, key, value []byte) (string, string) {
	t.Helper()
	var k, v strings.Builder
	switch {
	case f == GroupCoordinator && (typ == 0 || typ == 1):
		var key1 kmsg.OffsetCommitKey
		if err := key1.ReadFrom(key); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&k, `{"group":%s,"topic":%s,"partition":%d}`, q(key1.Group), q(key1.Topic), key1.Partition)
		if value == nil {
			break
		}
		var val kmsg.OffsetCommitValue
		if err := val.ReadFrom(value); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&v, `{"offset":%d`, val.Offset)
		if val.Version >= 3 {
			fmt.Fprintf(&v, `,"leaderEpoch":%d`, val.LeaderEpoch)
		}
		fmt.Fprintf(&v, `,"metadata":%s,"commitTimestamp":%d`, q(val.Metadata), val.CommitTimestamp)
		if val.Version == 1 {
			fmt.Fprintf(&v, `,"expireTimestamp":%d`, val.ExpireTimestamp)
		}
		if val.Version >= 4 && val.TopicID != [16]byte{} {
			fmt.Fprintf(&v, `,"topicId":%s`, q(base64.RawURLEncoding.EncodeToString(val.TopicID[:])))
		}
		v.WriteString("}")
	case f == GroupCoordinator && typ == 2:
		var key2 kmsg.GroupMetadataKey
		if err := key2.ReadFrom(key); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&k, `{"group":%s}`, q(key2.Group))
		if value == nil {
			break
		}
		var val kmsg.GroupMetadataValue
		if err := val.ReadFrom(value); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&v, `{"protocolType":%s,"generation":%d,"protocol":%s,"leader":%s`, q(val.ProtocolType), val.Generation, qp(val.Protocol), qp(val.Leader))
		if val.Version >= 2 {
			fmt.Fprintf(&v, `,"currentStateTimestamp":%d`, val.CurrentStateTimestamp)
		}
		v.WriteString(`,"members":[`)
		for i, m := range val.Members {
			if i > 0 {
				v.WriteString(",")
			}
			fmt.Fprintf(&v, `{"memberId":%s`, q(m.MemberID))
			if val.Version >= 3 {
				fmt.Fprintf(&v, `,"groupInstanceId":%s`, qp(m.InstanceID))
			}
			fmt.Fprintf(&v, `,"clientId":%s,"clientHost":%s`, q(m.ClientID), q(m.ClientHost))
			if val.Version >= 1 {
				fmt.Fprintf(&v, `,"rebalanceTimeout":%d`, m.RebalanceTimeoutMillis)
			}
			fmt.Fprintf(&v, `,"sessionTimeout":%d,"subscription":"%s","assignment":"%s"}`, m.SessionTimeoutMillis,
				base64.StdEncoding.EncodeToString(m.Subscription), base64.StdEncoding.EncodeToString(m.Assignment))
		}
		v.WriteString("]}")
	case f == TransactionCoordinator && typ == 0:
		var key0 kmsg.TxnMetadataKey
		if err := key0.ReadFrom(key); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&k, `{"transactionalId":%s}`, q(key0.TransactionalID))
		if value == nil {
			break
		}
		var val kmsg.TxnMetadataValue
		if err := val.ReadFrom(value); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&v, `{"producerId":%d`, val.ProducerID)
		tagged := func(name string, x, def int64) {
			if val.Version >= 1 && x != def {
				fmt.Fprintf(&v, `,"%s":%d`, name, x)
			}
		}
		tagged("previousProducerId", val.PreviousProducerID, -1)
		tagged("nextProducerId", val.NextProducerID, -1)
		fmt.Fprintf(&v, `,"producerEpoch":%d`, val.ProducerEpoch)
		tagged("nextProducerEpoch", int64(val.NextProducerEpoch), -1)
		fmt.Fprintf(&v, `,"transactionTimeoutMs":%d,"transactionStatus":%d,"transactionPartitions":`, val.TimeoutMillis, val.State)
		if val.Topics == nil {
			v.WriteString("null")
		} else {
			v.WriteString("[")
			for i, tp := range val.Topics {
				if i > 0 {
					v.WriteString(",")
				}
				parts := make([]string, len(tp.Partitions))
				for j, p := range tp.Partitions {
					parts[j] = fmt.Sprint(p)
				}
				fmt.Fprintf(&v, `{"topic":%s,"partitionIds":[%s]}`, q(tp.Topic), strings.Join(parts, ","))
			}
			v.WriteString("]")
		}
		fmt.Fprintf(&v, `,"transactionLastUpdateTimestampMs":%d,"transactionStartTimestampMs":%d`, val.LastUpdateTimestamp, val.StartTimestamp)
		tagged("clientTransactionVersion", int64(val.ClientTransactionVersion), 0)
		v.WriteString("}")
	default:
		t.Fatalf("no franz-go message for family %d type %d", f, typ)
	}
	return k.String(), v.String()
}
