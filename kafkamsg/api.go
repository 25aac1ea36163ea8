package kafkamsg

import (
	"errors"
	"fmt"
	"strings"
)

// Family is one set of Kafka's message definitions, read from its JSON files at the commit
// the generated tables name (docs/kafkamsg.md).
type Family int

const (
	// Metadata: the KRaft metadata records of __cluster_metadata (MetadataRecordType).
	Metadata Family = iota
	// GroupCoordinator: the records of __consumer_offsets (GroupCoordinatorRecordType).
	GroupCoordinator
	// TransactionCoordinator: the records of __transaction_state.
	TransactionCoordinator
	// ShareCoordinator: the records of __share_group_state.
	ShareCoordinator
	// ConsumerProtocol: ConsumerProtocolSubscription and ConsumerProtocolAssignment, the bytes
	// a classic consumer group's members carry.
	ConsumerProtocol
)

// UnknownRecordTypeError is a record type the family has no definition for (Kafka's
// UnknownRecordTypeException).
type UnknownRecordTypeError struct {
	Family Family
	Type   int16
}

// Error is the text of Kafka's exception: for a coordinator family
// UnknownRecordTypeException's "Found an unknown record type N"; for Metadata the
// MetadataParseException wrapping MetadataRecordType.fromId's UnsupportedVersionException,
// whose getMessage() is the cause's toString().
func (e *UnknownRecordTypeError) Error() string {
	if e.Family == Metadata {
		return fmt.Sprintf("org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id %d", e.Type)
	}
	return fmt.Sprintf("Found an unknown record type %d", e.Type)
}

// UnknownVersionError is a version outside a message's validVersions (Kafka's
// UnknownRecordVersionException, UnsupportedVersionException).
type UnknownVersionError struct {
	Message string
	Version int16
	// kafka is the exception's getMessage() text.
	kafka string
}

func (e *UnknownVersionError) Error() string {
	if e.kafka != "" {
		return e.kafka
	}
	return fmt.Sprintf("%s: unknown version %d", e.Message, e.Version)
}

// ReadError is a message Kafka's generated read or its serde refuses. Kafka is the text its
// exception's getMessage() gives ("null" where Java's exception carries none, as
// BufferUnderflowException); Detail, when set, says the same in kidx's words.
type ReadError struct {
	Kafka  string
	Detail string
}

func (e *ReadError) Error() string {
	if e.Detail != "" {
		return e.Detail
	}
	return e.Kafka
}

// KafkaMessage is what Kafka's exception's getMessage() returns for an error of this package
// (what DumpLogSegments prints after "Error at offset N, skipping. "), and whether err is one.
func KafkaMessage(err error) (string, bool) {
	var km kafkaMessager
	if errors.As(err, &km) {
		return km.kafkaMessage(), true
	}
	return "", false
}

// kafkaMessager is an error that knows Kafka's text for itself.
type kafkaMessager interface {
	error
	kafkaMessage() string
}

func (e *ReadError) kafkaMessage() string              { return e.Kafka }
func (e *UnknownVersionError) kafkaMessage() string    { return e.Error() }
func (e *UnknownRecordTypeError) kafkaMessage() string { return e.Error() }
func (w *wrapped) kafkaMessage() string                { return w.kafka }

// wrapped is an error whose Kafka text is its own: Kafka wrapped the cause's exception in
// one with a message of its own (MetadataParseException, CoordinatorRecordSerde's
// RuntimeException); the cause stays reachable with errors.As for kidx's words.
type wrapped struct {
	kafka string
	cause error
}

// Error is Kafka's text, and the cause's words where Kafka's text does not already hold them.
func (w *wrapped) Error() string {
	cause := w.cause.Error()
	if strings.Contains(w.kafka, cause) {
		return w.kafka
	}
	return w.kafka + " (" + cause + ")"
}

func (w *wrapped) Unwrap() error { return w.cause }

// metadataFrameVersion is AbstractApiMessageSerde's DEFAULT_FRAME_VERSION, the only one read.
const metadataFrameVersion = 1

// MetadataRecord reads one __cluster_metadata record value as MetadataRecordSerde.read does
// (frame version, apiKey and version as unsigned varints, then the message) and returns what
// DumpLogSegments' ClusterMetadataLogMessageParser prints:
// {"type":"TOPIC_RECORD","version":0,"data":{...}}.
//
// Like Kafka it reads a version outside the record's validVersions with the version tests its
// generated class compiled in (see ValidVersions to tell such a record apart).
func MetadataRecord(value []byte) (*Object, error) {
	r := &reader{buf: value}
	frame, err := frameShort(r, "frame version")
	if err != nil {
		return nil, err
	}
	switch frame {
	case metadataFrameVersion:
	case 0:
		return nil, &ReadError{Kafka: "Could not deserialize metadata record with frame version 0. " +
			"Note that upgrades from the preview release of KRaft in 2.8 to newer versions are not supported."}
	default:
		return nil, &ReadError{Kafka: fmt.Sprintf("Could not deserialize metadata record due to unknown frame version %d(only frame version %d is supported)", frame, metadataFrameVersion)}
	}
	apiKey, err := frameShort(r, "type")
	if err != nil {
		return nil, err
	}
	version, err := frameShort(r, "version")
	if err != nil {
		return nil, err
	}
	msg := metadataByKey[apiKey]
	if msg == nil {
		return nil, &UnknownRecordTypeError{Family: Metadata, Type: apiKey}
	}
	sv := readStruct(r, msg.body, version)
	if r.err != nil {
		return nil, &wrapped{kafka: fmt.Sprintf("Failed to deserialize record with type %d", apiKey), cause: r.err}
	}
	if n := r.remaining(); n > 0 {
		return nil, &ReadError{Kafka: fmt.Sprintf("Found %d byte(s) of garbage after %d", n, apiKey)}
	}
	data, err := writeStruct(sv, version)
	if err != nil {
		return nil, err
	}
	out := &Object{}
	out.Set("type", metadataTypeNames[apiKey])
	out.Set("version", Int(version))
	out.Set("data", data)
	return out, nil
}

// frameShort is AbstractApiMessageSerde.unsignedIntToShort: an unsigned varint above
// Short.MAX_VALUE is refused, and Java's (short) cast keeps the low 16 bits of the rest
// (varints from 2^31 read as negative ints).
func frameShort(r *reader, entity string) (int16, error) {
	v := r.readUnsignedVarint()
	if r.err != nil {
		return 0, &wrapped{kafka: "Error while reading " + entity, cause: r.err}
	}
	if v > 0x7fff {
		return 0, &ReadError{Kafka: "Value for " + entity + " was too large."}
	}
	return int16(v), nil
}

// metadataTypeName is the MetadataRecordType constant's name (MetadataRecordTypeGenerator:
// the message name in snake case, upper-cased): "TOPIC_RECORD".
func metadataTypeName(m *messageDef) string {
	return upperASCII(toSnakeCase(m.name))
}

func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	return string(b)
}

// CoordinatorKey reads the message of a coordinator record's key whose leading int16 was
// recordType (CoordinatorRecordSerde.deserialize reads the key message at version
// recordType) and returns it as the family's JSON converter writes it (the "data" of
// DumpLogSegments' key: CoordinatorRecordJsonConvertersGenerator writes keys at version 0).
// Bytes after the message are not looked at, as in Kafka.
func CoordinatorKey(f Family, recordType int16, body []byte) (*Object, error) {
	pair := coordinatorPair(f, recordType)
	if pair == nil {
		return nil, &UnknownRecordTypeError{Family: f, Type: recordType}
	}
	r := &reader{buf: body}
	sv := readStruct(r, pair.key.body, recordType)
	if r.err != nil {
		return nil, coordinatorReadError(recordType, "key", r.err)
	}
	return writeStruct(sv, 0)
}

// CoordinatorValue reads the message of a coordinator record's value at version (the value's
// leading int16) for recordType, and returns it as the family's JSON converter writes it.
// A version outside the value's validVersions is CoordinatorRecordSerde's
// UnknownRecordVersionException.
func CoordinatorValue(f Family, recordType, version int16, body []byte) (*Object, error) {
	pair := coordinatorPair(f, recordType)
	if pair == nil {
		return nil, &UnknownRecordTypeError{Family: f, Type: recordType}
	}
	if version < pair.value.valid.lowest || version > pair.value.valid.highest {
		return nil, &UnknownVersionError{Message: pair.value.name, Version: version,
			kafka: fmt.Sprintf("Found an unknown record version %d for %d type", version, recordType)}
	}
	r := &reader{buf: body}
	sv := readStruct(r, pair.value.body, version)
	if r.err != nil {
		return nil, coordinatorReadError(version, "value", r.err)
	}
	return writeStruct(sv, version)
}

// coordinatorReadError is CoordinatorRecordSerde.readMessage's RuntimeException.
func coordinatorReadError(version int16, name string, cause error) error {
	text, _ := KafkaMessage(cause)
	return &wrapped{kafka: fmt.Sprintf("Could not read record with version %d from %s's buffer due to: %s.", version, name, text), cause: cause}
}

// Data reads a message of type "data" by name at version (e.g. "ConsumerProtocolSubscription")
// and returns it as its JSON converter writes it. As `new ConsumerProtocolSubscription(readable,
// version)` does, it reads at any version and leaves bytes after the message alone.
func Data(f Family, name string, version int16, body []byte) (*Object, error) {
	var msg *messageDef
	for _, m := range familyMessages(f) {
		if m.name == name && m.typ == "data" {
			msg = m
		}
	}
	if msg == nil {
		return nil, fmt.Errorf("kafkamsg: no data message %q in family %d", name, f)
	}
	r := &reader{buf: body}
	sv := readStruct(r, msg.body, version)
	if r.err != nil {
		return nil, r.err
	}
	return writeStruct(sv, version)
}

// ValidVersions are the validVersions of recordType's message in family f (for a coordinator
// family, its value's), and whether f defines recordType. Kafka reads a metadata record at
// any version; a caller that wants to note a version outside these asks here.
func ValidVersions(f Family, recordType int16) (lowest, highest int16, ok bool) {
	if f == Metadata {
		if m := metadataByKey[recordType]; m != nil {
			return m.valid.lowest, m.valid.highest, true
		}
		return 0, 0, false
	}
	if pair := coordinatorPair(f, recordType); pair != nil {
		return pair.value.valid.lowest, pair.value.valid.highest, true
	}
	return 0, 0, false
}

// RecordTypeName is the name Kafka's generated enum gives recordType in family f
// (MetadataRecordType's "TOPIC_RECORD"; a coordinator family's CoordinatorRecordType,
// "OFFSET_COMMIT"), and whether f defines it.
func RecordTypeName(f Family, recordType int16) (string, bool) {
	if f == Metadata {
		if m := metadataByKey[recordType]; m != nil {
			return metadataTypeName(m), true
		}
		return "", false
	}
	if pair := coordinatorPair(f, recordType); pair != nil {
		// CoordinatorRecordTypeGenerator.cleanName: the key's name without "Key" or "Value".
		name := strings.ReplaceAll(strings.ReplaceAll(pair.key.name, "Key", ""), "Value", "")
		return upperASCII(toSnakeCase(name)), true
	}
	return "", false
}

func familyMessages(f Family) []*messageDef {
	switch f {
	case Metadata:
		return metadataMessages
	case GroupCoordinator:
		return groupCoordinatorMessages
	case TransactionCoordinator:
		return transactionCoordinatorMessages
	case ShareCoordinator:
		return shareCoordinatorMessages
	case ConsumerProtocol:
		return consumerProtocolMessages
	}
	return nil
}

// keyValue is one coordinator record type: its key and value messages.
type keyValue struct{ key, value *messageDef }

var (
	metadataByKey     = map[int16]*messageDef{}
	metadataTypeNames = map[int16]String{}
	coordinatorPairs  = map[Family]map[int16]*keyValue{}
)

func init() {
	for _, m := range metadataMessages {
		if m.typ == "metadata" {
			metadataByKey[m.apiKey] = m
			metadataTypeNames[m.apiKey] = String(metadataTypeName(m))
		}
	}
	for _, f := range []Family{GroupCoordinator, TransactionCoordinator, ShareCoordinator} {
		pairs := map[int16]*keyValue{}
		for _, m := range familyMessages(f) {
			kv := pairs[m.apiKey]
			if kv == nil {
				kv = &keyValue{}
			}
			switch m.typ {
			case "coordinator-key":
				kv.key = m
			case "coordinator-value":
				kv.value = m
			default:
				continue
			}
			pairs[m.apiKey] = kv
		}
		for k, kv := range pairs {
			if kv.key == nil || kv.value == nil {
				delete(pairs, k) // CoordinatorRecordTypeGenerator requires both
			}
		}
		coordinatorPairs[f] = pairs
	}
}

func coordinatorPair(f Family, recordType int16) *keyValue {
	return coordinatorPairs[f][recordType]
}
