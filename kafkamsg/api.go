package kafkamsg

import (
	"errors"
	"fmt"
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

func (e *UnknownRecordTypeError) Error() string {
	return fmt.Sprintf("unknown record type %d", e.Type)
}

// UnknownVersionError is a version outside a message's validVersions (Kafka's
// UnknownRecordVersionException, UnsupportedVersionException).
type UnknownVersionError struct {
	Message string
	Version int16
}

func (e *UnknownVersionError) Error() string {
	return fmt.Sprintf("%s: unknown version %d", e.Message, e.Version)
}

// errNotGenerated stands until the generated tables land.
var errNotGenerated = errors.New("kafkamsg: the generated message tables are missing")

// MetadataRecord reads one __cluster_metadata record value as MetadataRecordSerde.read does
// (frame version, apiKey and version as unsigned varints, then the message) and returns what
// DumpLogSegments' ClusterMetadataLogMessageParser prints:
// {"type":"TOPIC_RECORD","version":0,"data":{...}}.
func MetadataRecord(value []byte) (*Object, error) {
	return nil, errNotGenerated
}

// CoordinatorKey reads the message of a coordinator record's key whose leading int16 was
// recordType (CoordinatorRecordSerde.deserialize reads the key message at version
// recordType) and returns it as the family's JSON converter writes it (the "data" of
// DumpLogSegments' key).
func CoordinatorKey(f Family, recordType int16, body []byte) (*Object, error) {
	return nil, errNotGenerated
}

// CoordinatorValue reads the message of a coordinator record's value at version (the value's
// leading int16) for recordType, and returns it as the family's JSON converter writes it.
func CoordinatorValue(f Family, recordType, version int16, body []byte) (*Object, error) {
	return nil, errNotGenerated
}

// Data reads a message of type "data" by name at version (e.g. "ConsumerProtocolSubscription")
// and returns it as its JSON converter writes it.
func Data(f Family, name string, version int16, body []byte) (*Object, error) {
	return nil, errNotGenerated
}
