package dump

import (
	"encoding/hex"
	"fmt"

	"kidx/kafkamsg"
	"kidx/segment"
)

// Decoder is DumpLogSegments' MessageParser: how a record's key and value are printed when
// the records' contents are printed (docs/dump-decoders.md).
type Decoder int

const (
	// DecodeText is the default parser (DecoderMessageParser with StringDecoder): key and value
	// as UTF-8 text.
	DecodeText Decoder = iota
	// DecodeOffsets is --offsets-decoder: the records of __consumer_offsets.
	DecodeOffsets
	// DecodeTransactionLog is --transaction-log-decoder: the records of __transaction_state.
	DecodeTransactionLog
	// DecodeClusterMetadata is --cluster-metadata-decoder: the KRaft metadata records of
	// __cluster_metadata and its snapshots.
	DecodeClusterMetadata
	// DecodeShareGroupState is --share-group-state-decoder: the records of __share_group_state
	// (ShareGroupStateMessageParser, a CoordinatorRecordMessageParser over
	// ShareCoordinatorRecordSerde), in 4.1 and later's printed form.
	DecodeShareGroupState
)

// String is the decoder's kafka-dump-log flag.
func (d Decoder) String() string {
	switch d {
	case DecodeOffsets:
		return "offsets-decoder"
	case DecodeTransactionLog:
		return "transaction-log-decoder"
	case DecodeClusterMetadata:
		return "cluster-metadata-decoder"
	case DecodeShareGroupState:
		return "share-group-state-decoder"
	}
	return "print-data-log"
}

// DecoderEra is the Kafka release line whose printed form the coordinator decoders reproduce.
type DecoderEra int

const (
	// EraCoordinatorJSON is Kafka 4.1 and later: CoordinatorRecordMessageParser's
	// {"type":"1","data":{...}} keys and {"version":"3","data":{...}} values for both the
	// offsets and the transaction-log decoders.
	EraCoordinatorJSON DecoderEra = iota
	// Era40 is Kafka 4.0: OffsetsMessageParser's JSON (record type 0 read as OffsetCommit), the
	// transaction log still TransactionLog.formatRecordKeyAndValue's text.
	Era40
	// EraText is Kafka 3.x and before: GroupMetadataManager.formatRecordKeyAndValue's and
	// TransactionLog.formatRecordKeyAndValue's text.
	EraText
)

// String names the era's releases.
func (e DecoderEra) String() string {
	switch e {
	case Era40:
		return "4.0"
	case EraText:
		return "3.x"
	}
	return "4.1+"
}

// decodedRecord is what a parser gives for one record: the key and payload as printed
// (nil: not printed), the JSON trees they were printed from where the parser made one, and
// kidx's own remark when the record could not be decoded.
type decodedRecord struct {
	key, payload         *string
	keyJSON, payloadJSON kafkamsg.Value
	note                 string
}

// fatalRecordError is a record that stops DumpLogSegments with an exception (a coordinator
// record without a key, a legacy parser's unknown value version): the dump of the file stops
// there, as Kafka's does.
type fatalRecordError struct {
	offset int64
	msg    string
}

func (e *fatalRecordError) Error() string {
	return fmt.Sprintf("record at offset %d: %s", e.offset, e.msg)
}

// parseRecord is opts.Decoder's parse of one record (never called for a control batch).
func parseRecord(r segment.DecodedRecord, opts Options) (decodedRecord, error) {
	switch opts.Decoder {
	case DecodeOffsets:
		if opts.DecoderEra == EraText {
			return parseOffsetsText(r)
		}
		return parseCoordinatorJSON(r, kafkamsg.GroupCoordinator, opts.DecoderEra)
	case DecodeTransactionLog:
		if opts.DecoderEra != EraCoordinatorJSON {
			return parseTransactionLogText(r)
		}
		return parseCoordinatorJSON(r, kafkamsg.TransactionCoordinator, opts.DecoderEra)
	case DecodeClusterMetadata:
		return parseClusterMetadata(r), nil
	case DecodeShareGroupState:
		return parseCoordinatorJSON(r, kafkamsg.ShareCoordinator, EraCoordinatorJSON)
	}
	return decodedRecord{key: dataText(r.Key), payload: dataText(r.Value)}, nil
}

// textOf is s as a *string.
func textOf(s string) *string { return &s }

// maxNoteBytes bounds the raw bytes a note shows in hex.
const maxNoteBytes = 64

// rawHex is b in hex for a note, cut after maxNoteBytes.
func rawHex(b []byte) string {
	if b == nil {
		return "null"
	}
	if len(b) > maxNoteBytes {
		return fmt.Sprintf("%s... (%d bytes)", hex.EncodeToString(b[:maxNoteBytes]), len(b))
	}
	return hex.EncodeToString(b)
}

// undecodedNote is kidx's remark beside Kafka's "skipping" text: the raw key and value.
func undecodedNote(r segment.DecodedRecord, why string) string {
	return fmt.Sprintf("offset %d: %s; key %s, value %s", r.Offset, why, rawHex(r.Key), rawHex(r.Value))
}

// parseClusterMetadata is ClusterMetadataLogMessageParser.parse: no key; the value read by
// MetadataRecordSerde as {"type":"TOPIC_RECORD","version":0,"data":{...}}, or "Error at N,
// skipping. <message>" (Kafka's text says "at N", not "at offset N").
func parseClusterMetadata(r segment.DecodedRecord) decodedRecord {
	if r.Value == nil {
		// Kafka dereferences the null value (a NullPointerException whose message depends on
		// the JVM); kidx says what it is.
		return decodedRecord{payload: textOf(fmt.Sprintf("Error at %d, skipping. the record has no value", r.Offset)),
			note: undecodedNote(r, "a metadata record without a value")}
	}
	obj, err := kafkamsg.MetadataRecord(r.Value)
	if err != nil {
		return decodedRecord{payload: textOf(fmt.Sprintf("Error at %d, skipping. %s", r.Offset, kafkaMessageOf(err))),
			note: undecodedNote(r, "not decoded: "+err.Error())}
	}
	return decodedRecord{payload: textOf(kafkamsg.JSON(obj)), payloadJSON: obj}
}

// kafkaMessageOf is the text DumpLogSegments prints after "skipping." for an error of kafkamsg:
// its exception's getMessage() (kafkamsg.KafkaMessage). The kidx note keeps Error(), which may
// add kidx's own words.
func kafkaMessageOf(err error) string {
	if m, ok := kafkamsg.KafkaMessage(err); ok {
		return m
	}
	return err.Error()
}
