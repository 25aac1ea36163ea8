package dump

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kidx/kafkamsg"
	"kidx/segment"
)

// The JSON eras (Kafka 4.0's OffsetsMessageParser, 4.1+'s CoordinatorRecordMessageParser). A
// coordinator record's key is an int16 record type and the key message; its value an int16
// version and the value message, or null for a tombstone (CoordinatorRecordSerde.deserialize).
// The records franz-go's kmsg knows (offset commits, classic group metadata, transaction
// metadata) are read with kmsg and written here as the generated JsonConverters write them:
// fields in the order of the message's JSON definition, a field only in the versions that
// have it, a tagged field only when it is not its default. The others go to kafkamsg.

// valueVersions is a value message's validVersions (CoordinatorRecordSerde.deserialize
// throws UnknownRecordVersionException outside them).
type valueVersions struct{ lo, hi int16 }

func parseCoordinatorJSON(r segment.DecodedRecord, fam kafkamsg.Family, era DecoderEra) (decodedRecord, error) {
	if r.Key == nil {
		// CoordinatorRecordMessageParser.parse throws: the tool stops. 4.0's OffsetsMessageParser
		// named the "offset topic decoder".
		decoder := "the specified decoder"
		if era == Era40 {
			decoder = "offset topic decoder"
		}
		return decodedRecord{}, &fatalRecordError{r.Offset, fmt.Sprintf("Failed to decode message at offset %d using %s (message had a missing key)", r.Offset, decoder)}
	}
	// skipWhy prints Kafka's msg and notes kidx's why.
	skipWhy := func(msg, why string) (decodedRecord, error) {
		return decodedRecord{key: textOf(fmt.Sprintf("Error at offset %d, skipping. %s", r.Offset, msg)), note: undecodedNote(r, why)}, nil
	}
	skip := func(msg string) (decodedRecord, error) { return skipWhy(msg, msg) }
	skipErr := func(err error) (decodedRecord, error) { return skipWhy(kafkaMessageOf(err), err.Error()) }
	if len(r.Key) < 2 {
		return skip("Could not read version from key's buffer.")
	}
	recordType := int16(binary.BigEndian.Uint16(r.Key))
	keyData, versions, err := coordinatorKey(fam, recordType, r.Key, era)
	var unknown *kafkamsg.UnknownRecordTypeError
	switch {
	case errors.As(err, &unknown):
		return decodedRecord{key: textOf(fmt.Sprintf("Unknown record type %d at offset %d, skipping.", unknown.Type, r.Offset)),
			note: undecodedNote(r, fmt.Sprintf("unknown record type %d", unknown.Type))}, nil
	case err != nil:
		return skipErr(err)
	}
	// prepareKey: {"type":"<apiKey>","data":...}; 4.0's prepareKey printed the key's version,
	// which is the same number (the record type).
	keyJSON := (&kafkamsg.Object{}).Set("type", kafkamsg.String(fmt.Sprint(recordType))).Set("data", keyData)
	out := decodedRecord{key: textOf(kafkamsg.JSON(keyJSON)), keyJSON: keyJSON}
	if r.Value == nil {
		out.payload = textOf("<DELETE>")
		return out, nil
	}
	if len(r.Value) < 2 {
		return skip("Could not read version from value's buffer.")
	}
	version := int16(binary.BigEndian.Uint16(r.Value))
	if versions == nil {
		versions = &valueVersions{}
	}
	var valueData kafkamsg.Value
	if versions.lo <= versions.hi {
		if version < versions.lo || version > versions.hi {
			return skip(fmt.Sprintf("Found an unknown record version %d for %d type", version, recordType))
		}
		valueData, err = coordinatorValue(fam, recordType, r.Value)
	} else {
		valueData, err = kafkamsg.CoordinatorValue(fam, recordType, version, r.Value[2:])
	}
	if err != nil {
		return skipErr(err)
	}
	valueJSON := (&kafkamsg.Object{}).Set("version", kafkamsg.String(fmt.Sprint(version))).Set("data", valueData)
	out.payload, out.payloadJSON = textOf(kafkamsg.JSON(valueJSON)), valueJSON
	return out, nil
}

// readError is CoordinatorRecordSerde.readMessage's wrapping of a read that ran out of bytes
// (a BufferUnderflowException, whose message is null).
func readError(version int16, which string) error {
	return kafkaText(fmt.Sprintf("Could not read record with version %d from %s's buffer due to: null.", version, which))
}

// kafkaText is an error whose text is Kafka's exception message, capitals and full stop kept.
type kafkaText string

func (e kafkaText) Error() string { return string(e) }

// coordinatorKey is the "data" of a key, and the validVersions of the value that goes with
// it (hi < lo: ask kafkamsg). kmsg reads the leading int16 itself.
func coordinatorKey(fam kafkamsg.Family, recordType int16, key []byte, era DecoderEra) (kafkamsg.Value, *valueVersions, error) {
	switch {
	case fam == kafkamsg.GroupCoordinator && (recordType == 0 || recordType == 1):
		var k kmsg.OffsetCommitKey
		if err := k.ReadFrom(key); err != nil {
			return nil, nil, readError(recordType, "key")
		}
		// OffsetCommitKey (LegacyOffsetCommitKey for type 0 in 4.1+): group, topic, partition.
		data := (&kafkamsg.Object{}).Set("group", kafkamsg.String(k.Group)).Set("topic", kafkamsg.String(k.Topic)).Set("partition", kafkamsg.Int(k.Partition))
		if recordType == 0 && era == EraCoordinatorJSON {
			// GroupCoordinatorRecordSerde (4.1+): type 0 is LegacyOffsetCommitValue, version 0 only.
			return data, &valueVersions{0, 0}, nil
		}
		return data, &valueVersions{0, 4}, nil // OffsetCommitValue: validVersions 0-4
	case fam == kafkamsg.GroupCoordinator && recordType == 2:
		var k kmsg.GroupMetadataKey
		if err := k.ReadFrom(key); err != nil {
			return nil, nil, readError(recordType, "key")
		}
		return (&kafkamsg.Object{}).Set("group", kafkamsg.String(k.Group)), &valueVersions{0, 4}, nil // GroupMetadataValue: 0-4
	case fam == kafkamsg.TransactionCoordinator && recordType == 0:
		var k kmsg.TxnMetadataKey
		if err := k.ReadFrom(key); err != nil {
			return nil, nil, readError(recordType, "key")
		}
		return (&kafkamsg.Object{}).Set("transactionalId", kafkamsg.String(k.TransactionalID)), &valueVersions{0, 1}, nil // TransactionLogValue: 0-1
	case fam == kafkamsg.TransactionCoordinator:
		// TransactionCoordinatorRecordSerde knows record type 0 only.
		return nil, nil, &kafkamsg.UnknownRecordTypeError{Family: fam, Type: recordType}
	}
	obj, err := kafkamsg.CoordinatorKey(fam, recordType, key[2:])
	if err != nil {
		return nil, nil, err
	}
	return obj, &valueVersions{1, 0}, nil
}

// coordinatorValue is the "data" of a value whose version is valid (value holds the version).
func coordinatorValue(fam kafkamsg.Family, recordType int16, value []byte) (kafkamsg.Value, error) {
	version := int16(binary.BigEndian.Uint16(value))
	switch {
	case fam == kafkamsg.GroupCoordinator && recordType <= 1:
		var v kmsg.OffsetCommitValue
		if err := v.ReadFrom(value); err != nil {
			return nil, readError(version, "value")
		}
		return offsetCommitValueJSON(&v), nil
	case fam == kafkamsg.GroupCoordinator && recordType == 2:
		var v kmsg.GroupMetadataValue
		if err := v.ReadFrom(value); err != nil {
			return nil, readError(version, "value")
		}
		return groupMetadataValueJSON(&v), nil
	default: // the transaction log's type 0
		var v kmsg.TxnMetadataValue
		if err := v.ReadFrom(value); err != nil {
			return nil, readError(version, "value")
		}
		return transactionLogValueJSON(&v), nil
	}
}

// kafkaUUID is Kafka's Uuid.toString: URL-safe base64 without padding.
func kafkaUUID(b [16]byte) string { return base64.RawURLEncoding.EncodeToString(b[:]) }

// offsetCommitValueJSON is OffsetCommitValueJsonConverter.write (LegacyOffsetCommitValue's
// fields are version 0's): offset, leaderEpoch (3+), metadata, commitTimestamp,
// expireTimestamp (1 only), topicId (tagged, 4+, when not the zero Uuid).
func offsetCommitValueJSON(v *kmsg.OffsetCommitValue) *kafkamsg.Object {
	o := (&kafkamsg.Object{}).Set("offset", kafkamsg.Int(v.Offset))
	if v.Version >= 3 {
		o.Set("leaderEpoch", kafkamsg.Int(v.LeaderEpoch))
	}
	o.Set("metadata", kafkamsg.String(v.Metadata)).Set("commitTimestamp", kafkamsg.Int(v.CommitTimestamp))
	if v.Version == 1 {
		o.Set("expireTimestamp", kafkamsg.Int(v.ExpireTimestamp))
	}
	if v.Version >= 4 && v.TopicID != [16]byte{} {
		o.Set("topicId", kafkamsg.String(kafkaUUID(v.TopicID)))
	}
	return o
}

func nullableString(s *string) kafkamsg.Value {
	if s == nil {
		return kafkamsg.Null{}
	}
	return kafkamsg.String(*s)
}

func nullableBytes(b []byte) kafkamsg.Value {
	if b == nil {
		return kafkamsg.Null{}
	}
	return kafkamsg.Bytes(b)
}

func int32Array(xs []int32) kafkamsg.Array {
	a := make(kafkamsg.Array, len(xs))
	for i, x := range xs {
		a[i] = kafkamsg.Int(x)
	}
	return a
}

// groupMetadataValueJSON is OffsetsMessageParser.prepareGroupMetadataValue:
// GroupMetadataValueJsonConverter.write (protocolType, generation, protocol, leader,
// currentStateTimestamp (2+), members: memberId, groupInstanceId (3+), clientId, clientHost,
// rebalanceTimeout (1+), sessionTimeout, subscription, assignment), then, for protocolType
// "consumer", each member's subscription and assignment bytes replaced by their
// ConsumerProtocolSubscription and ConsumerProtocolAssignment JSON when they read and their
// version can be written (0-3); otherwise the bytes stay (base64).
func groupMetadataValueJSON(v *kmsg.GroupMetadataValue) *kafkamsg.Object {
	o := (&kafkamsg.Object{}).Set("protocolType", kafkamsg.String(v.ProtocolType)).Set("generation", kafkamsg.Int(v.Generation)).
		Set("protocol", nullableString(v.Protocol)).Set("leader", nullableString(v.Leader))
	if v.Version >= 2 {
		o.Set("currentStateTimestamp", kafkamsg.Int(v.CurrentStateTimestamp))
	}
	consumer := v.ProtocolType == "consumer" // ConsumerProtocol.PROTOCOL_TYPE
	members := kafkamsg.Array{}
	for i := range v.Members {
		m := &v.Members[i]
		mo := (&kafkamsg.Object{}).Set("memberId", kafkamsg.String(m.MemberID))
		if v.Version >= 3 {
			mo.Set("groupInstanceId", nullableString(m.InstanceID))
		}
		mo.Set("clientId", kafkamsg.String(m.ClientID)).Set("clientHost", kafkamsg.String(m.ClientHost))
		if v.Version >= 1 {
			mo.Set("rebalanceTimeout", kafkamsg.Int(m.RebalanceTimeoutMillis))
		}
		mo.Set("sessionTimeout", kafkamsg.Int(m.SessionTimeoutMillis))
		var sub, asg kafkamsg.Value = kafkamsg.Bytes(m.Subscription), kafkamsg.Bytes(m.Assignment)
		if consumer {
			if j := subscriptionJSON(m.Subscription); j != nil {
				sub = j
			}
			if j := assignmentJSON(m.Assignment); j != nil {
				asg = j
			}
		}
		mo.Set("subscription", sub).Set("assignment", asg)
		members = append(members, mo)
	}
	return o.Set("members", members)
}

// subscriptionJSON is ConsumerProtocolSubscriptionJsonConverter.write of the bytes (topics,
// userData, ownedPartitions (1+), generationId (2+), rackId (3+)), or nil when Kafka keeps
// the bytes (a read error, or a version outside 0-3 that the converter refuses to write).
func subscriptionJSON(b []byte) *kafkamsg.Object {
	var s kmsg.ConsumerMemberMetadata
	if err := s.ReadFrom(b); err != nil || s.Version < 0 || s.Version > 3 {
		return nil
	}
	topics := make(kafkamsg.Array, len(s.Topics))
	for i, t := range s.Topics {
		topics[i] = kafkamsg.String(t)
	}
	o := (&kafkamsg.Object{}).Set("topics", topics).Set("userData", nullableBytes(s.UserData))
	if s.Version >= 1 {
		owned := kafkamsg.Array{}
		for _, p := range s.OwnedPartitions {
			owned = append(owned, (&kafkamsg.Object{}).Set("topic", kafkamsg.String(p.Topic)).Set("partitions", int32Array(p.Partitions)))
		}
		o.Set("ownedPartitions", owned)
	}
	if s.Version >= 2 {
		o.Set("generationId", kafkamsg.Int(s.Generation))
	}
	if s.Version >= 3 {
		o.Set("rackId", nullableString(s.Rack))
	}
	return o
}

// assignmentJSON is ConsumerProtocolAssignmentJsonConverter.write (assignedPartitions,
// userData), or nil as for subscriptionJSON.
func assignmentJSON(b []byte) *kafkamsg.Object {
	var a kmsg.ConsumerMemberAssignment
	if err := a.ReadFrom(b); err != nil || a.Version < 0 || a.Version > 3 {
		return nil
	}
	parts := kafkamsg.Array{}
	for _, t := range a.Topics {
		parts = append(parts, (&kafkamsg.Object{}).Set("topic", kafkamsg.String(t.Topic)).Set("partitions", int32Array(t.Partitions)))
	}
	return (&kafkamsg.Object{}).Set("assignedPartitions", parts).Set("userData", nullableBytes(a.UserData))
}

// transactionLogValueJSON is TransactionLogValueJsonConverter.write: producerId,
// previousProducerId (tagged, 1+, when not -1), nextProducerId (tagged, when not -1),
// producerEpoch, nextProducerEpoch (tagged, when not -1), transactionTimeoutMs,
// transactionStatus, transactionPartitions (nullable), transactionLastUpdateTimestampMs,
// transactionStartTimestampMs, clientTransactionVersion (tagged, when not 0).
func transactionLogValueJSON(v *kmsg.TxnMetadataValue) *kafkamsg.Object {
	flexible := v.Version >= 1
	o := (&kafkamsg.Object{}).Set("producerId", kafkamsg.Int(v.ProducerID))
	if flexible && v.PreviousProducerID != -1 {
		o.Set("previousProducerId", kafkamsg.Int(v.PreviousProducerID))
	}
	if flexible && v.NextProducerID != -1 {
		o.Set("nextProducerId", kafkamsg.Int(v.NextProducerID))
	}
	o.Set("producerEpoch", kafkamsg.Int(v.ProducerEpoch))
	if flexible && v.NextProducerEpoch != -1 {
		o.Set("nextProducerEpoch", kafkamsg.Int(v.NextProducerEpoch))
	}
	o.Set("transactionTimeoutMs", kafkamsg.Int(v.TimeoutMillis)).Set("transactionStatus", kafkamsg.Int(v.State))
	if v.Topics == nil {
		o.Set("transactionPartitions", kafkamsg.Null{})
	} else {
		parts := kafkamsg.Array{}
		for _, t := range v.Topics {
			parts = append(parts, (&kafkamsg.Object{}).Set("topic", kafkamsg.String(t.Topic)).Set("partitionIds", int32Array(t.Partitions)))
		}
		o.Set("transactionPartitions", parts)
	}
	o.Set("transactionLastUpdateTimestampMs", kafkamsg.Int(v.LastUpdateTimestamp)).Set("transactionStartTimestampMs", kafkamsg.Int(v.StartTimestamp))
	if flexible && v.ClientTransactionVersion != 0 {
		o.Set("clientTransactionVersion", kafkamsg.Int(v.ClientTransactionVersion))
	}
	return o
}
