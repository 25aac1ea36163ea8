package dump

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf16"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kidx/kafkamsg"
	"kidx/segment"
)

// The text eras: Kafka 3.x's (and older releases') OffsetsMessageParser printed
// GroupMetadataManager.formatRecordKeyAndValue, and up to 4.0 TransactionLogMessageParser
// printed TransactionLog.formatRecordKeyAndValue. Neither catches an exception: a record
// they cannot read stops the tool, and here stops the file's dump (fatalRecordError).

// parseOffsetsText is GroupMetadataManager.formatRecordKeyAndValue: key version 0-1 is an
// offset commit, 2 group metadata, anything else "unknown::version=N" without a payload.
func parseOffsetsText(r segment.DecodedRecord) (decodedRecord, error) {
	fatal := func(msg string) (decodedRecord, error) { return decodedRecord{}, &fatalRecordError{r.Offset, msg} }
	if r.Key == nil {
		return fatal("Failed to decode message using offset topic decoder (message had a missing key)")
	}
	if len(r.Key) < 2 {
		return fatal("java.nio.BufferUnderflowException (a key shorter than its version)")
	}
	switch version := int16(binary.BigEndian.Uint16(r.Key)); version {
	case 0, 1:
		var k kmsg.OffsetCommitKey
		if k.ReadFrom(r.Key) != nil {
			return fatal("java.nio.BufferUnderflowException (an offset commit key cut short)")
		}
		key := fmt.Sprintf("offset_commit::group=%s,partition=%s-%d", k.Group, k.Topic, k.Partition)
		if r.Value == nil {
			return decodedRecord{key: &key, payload: textOf("<DELETE>")}, nil
		}
		var v kmsg.OffsetCommitValue
		if len(r.Value) >= 2 {
			if vv := int16(binary.BigEndian.Uint16(r.Value)); vv < 0 || vv > 4 {
				// readOffsetMessageValue: OffsetCommitValue's validVersions are 0-4.
				return fatal(fmt.Sprintf("java.lang.IllegalStateException: Unknown offset message version: %d", vv))
			}
		}
		if v.ReadFrom(r.Value) != nil {
			return fatal("java.nio.BufferUnderflowException (an offset commit value cut short)")
		}
		payload := fmt.Sprintf("offset=%d", v.Offset)
		if v.Metadata != "" {
			payload += ",metadata=" + v.Metadata
		}
		return decodedRecord{key: &key, payload: &payload}, nil
	case 2:
		var k kmsg.GroupMetadataKey
		if k.ReadFrom(r.Key) != nil {
			return fatal("java.nio.BufferUnderflowException (a group metadata key cut short)")
		}
		key := "group_metadata::group=" + k.Group
		if r.Value == nil {
			return decodedRecord{key: &key, payload: textOf("<DELETE>")}, nil
		}
		if len(r.Value) >= 2 {
			if vv := int16(binary.BigEndian.Uint16(r.Value)); vv < 0 || vv > 4 {
				return fatal(fmt.Sprintf("java.lang.IllegalStateException: Unknown group metadata message version: %d", vv))
			}
		}
		var v kmsg.GroupMetadataValue
		if v.ReadFrom(r.Value) != nil {
			return fatal("java.nio.BufferUnderflowException (a group metadata value cut short)")
		}
		obj, err := groupMetadataText(&v)
		if err != nil {
			return fatal(err.Error())
		}
		return decodedRecord{key: &key, payload: textOf(kafkamsg.JSON(obj)), payloadJSON: obj}, nil
	default:
		return decodedRecord{key: textOf(fmt.Sprintf("unknown::version=%d", version)),
			note: undecodedNote(r, fmt.Sprintf("unknown key version %d", version))}, nil
	}
}

// groupMetadataText is parseGroupMetadata's value: Json.encodeAsString of a four-entry map
// (protocolType, protocol, generationId, assignment), the assignment being
// "{member=[t-0, t-1]:USERDATAHEX,...}" over group.allMemberMetadata, whose order is the
// iteration order of GroupMetadata's members, a Scala 2.13 mutable.HashMap keyed by member id.
func groupMetadataText(v *kmsg.GroupMetadataValue) (*kafkamsg.Object, error) {
	consumer := v.ProtocolType == "consumer"
	ids := make([]string, len(v.Members))
	for i := range v.Members {
		ids[i] = v.Members[i].MemberID
	}
	parts := make([]string, 0, len(v.Members))
	for _, i := range scalaHashOrder(ids, javaStringHash, true) {
		m := &v.Members[i]
		if !consumer {
			parts = append(parts, m.MemberID+"="+unsignedHex(m.Assignment))
			continue
		}
		// ConsumerProtocol.deserializeAssignment: a negative version is refused; a newer one is
		// read as the newest; List<TopicPartition>.toString is "[t-0, t-1]".
		var a kmsg.ConsumerMemberAssignment
		if err := a.ReadFrom(m.Assignment); err != nil {
			return nil, fmt.Errorf("member %s: its assignment cannot be read (Kafka's ConsumerProtocol.deserializeAssignment throws)", m.MemberID)
		}
		if a.Version < 0 {
			return nil, fmt.Errorf("org.apache.kafka.common.protocol.types.SchemaException: Unsupported assignment version: %d", a.Version)
		}
		var tps []string
		for _, t := range a.Topics {
			for _, p := range t.Partitions {
				tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p))
			}
		}
		s := m.MemberID + "=[" + strings.Join(tps, ", ") + "]"
		if ud := unsignedHex(a.UserData); ud != "" {
			s += ":" + ud
		}
		parts = append(parts, s)
	}
	protocolType := v.ProtocolType
	return (&kafkamsg.Object{}).Set("protocolType", kafkamsg.String(protocolType)).Set("protocol", nullableString(v.Protocol)).
		Set("generationId", kafkamsg.Int(v.Generation)).Set("assignment", kafkamsg.String("{"+strings.Join(parts, ",")+"}")), nil
}

// unsignedHex is GroupMetadataManager.hex: "" for no bytes, else "%X".format(BigInt(1,
// bytes)): upper-case hex of the bytes as an unsigned number, without leading zeros.
func unsignedHex(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return strings.ToUpper(new(big.Int).SetBytes(b).Text(16))
}

// transactionStates are TransactionState.fromId's names (TransactionMetadata.scala).
var transactionStates = []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// parseTransactionLogText is TransactionLog.formatRecordKeyAndValue (Kafka 4.0 and before).
func parseTransactionLogText(r segment.DecodedRecord) (decodedRecord, error) {
	fatal := func(msg string) (decodedRecord, error) { return decodedRecord{}, &fatalRecordError{r.Offset, msg} }
	if len(r.Key) < 2 {
		return fatal("the record has no key, or one shorter than its version (Kafka's readTxnRecordKey throws)")
	}
	version := int16(binary.BigEndian.Uint16(r.Key))
	if version != 0 { // TransactionLogKey's validVersions: 0
		return decodedRecord{key: textOf(fmt.Sprintf("unknown::version=%d", version)),
			note: undecodedNote(r, fmt.Sprintf("unknown key version %d", version))}, nil
	}
	var k kmsg.TxnMetadataKey
	if k.ReadFrom(r.Key) != nil {
		return fatal("java.nio.BufferUnderflowException (a transaction log key cut short)")
	}
	key := "transaction_metadata::transactionalId=" + k.TransactionalID
	if r.Value == nil {
		return decodedRecord{key: &key, payload: textOf("<DELETE>")}, nil
	}
	if len(r.Value) >= 2 {
		if vv := int16(binary.BigEndian.Uint16(r.Value)); vv < 0 || vv > 1 {
			return fatal(fmt.Sprintf("java.lang.IllegalStateException: Unknown version %d from the transaction log message value", vv))
		}
	}
	var v kmsg.TxnMetadataValue
	if v.ReadFrom(r.Value) != nil {
		return fatal("java.nio.BufferUnderflowException (a transaction log value cut short)")
	}
	if v.State < 0 || int(v.State) >= len(transactionStates) {
		return fatal(fmt.Sprintf("java.lang.IllegalStateException: Unknown transaction state id %d from the transaction status message", v.State))
	}
	state := transactionStates[v.State]
	// readTxnRecordValue adds the partitions unless the state is Empty, into a Scala 2.13
	// mutable.HashSet[TopicPartition]: mkString iterates it in hash order.
	var tps []string
	if state != "Empty" {
		seen := map[string]bool{}
		for _, t := range v.Topics {
			for _, p := range t.Partitions {
				s := fmt.Sprintf("%s-%d", t.Topic, p)
				if !seen[s] {
					seen[s] = true
					tps = append(tps, s)
				}
			}
		}
		order := scalaHashOrder(tps, func(s string) int32 {
			cut := strings.LastIndexByte(s, '-')
			var p int32
			fmt.Sscan(s[cut+1:], &p)
			return topicPartitionHash(s[:cut], p)
		}, false)
		sorted := make([]string, len(order))
		for i, j := range order {
			sorted[i] = tps[j]
		}
		tps = sorted
	}
	payload := fmt.Sprintf("producerId:%d,producerEpoch:%d,state=%s,partitions=[%s],txnLastUpdateTimestamp=%d,txnTimeoutMs=%d",
		v.ProducerID, v.ProducerEpoch, state, strings.Join(tps, ","), v.LastUpdateTimestamp, v.TimeoutMillis)
	return decodedRecord{key: &key, payload: &payload}, nil
}

// javaStringHash is String.hashCode over the string's UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, c := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(c)
	}
	return h
}

// topicPartitionHash is TopicPartition.hashCode: 31*(31+partition) + topic.hashCode().
func topicPartitionHash(topic string, partition int32) int32 {
	return 31*(31+partition) + javaStringHash(topic)
}

// scalaHashOrder is the order Scala 2.13's mutable.HashMap and HashSet iterate keys added one
// by one (duplicates in keys are the caller's): hash h improved to h ^ (h >>> 16), bucket
// hash & (size-1), buckets in index order, each bucket's entries by ascending improved hash
// compared as a signed Int (ties in insertion order); the table starts at 16 and doubles when an add brings the count
// to 0.75 of it (checked before the key is looked for, so a key put again may grow it).
// Returns the indexes of keys in that order. dedupe: a key added again keeps its first place
// (a map's put).
func scalaHashOrder(keys []string, hash func(string) int32, dedupe bool) []int {
	size := 16
	var n int
	seen := map[string]bool{}
	var idx []int
	for i, k := range keys {
		// put0 and add check the size before they look for the key.
		if n+1 >= size*3/4 {
			size *= 2
		}
		if dedupe && seen[k] {
			continue
		}
		seen[k] = true
		n++
		idx = append(idx, i)
	}
	improved := func(i int) int32 {
		h := uint32(hash(keys[i]))
		return int32(h ^ (h >> 16))
	}
	out := append([]int(nil), idx...)
	// A stable sort by (bucket, improved hash) keeps insertion order for equal hashes.
	less := func(a, b int) bool {
		ha, hb := improved(a), improved(b)
		ba, bb := uint32(ha)&uint32(size-1), uint32(hb)&uint32(size-1)
		if ba != bb {
			return ba < bb
		}
		return ha < hb
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && less(out[j], out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
