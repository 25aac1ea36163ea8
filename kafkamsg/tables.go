package kafkamsg

// The types of the generated tables (*_gen.go, written by kafkamsg/internal/gen from Kafka's
// JSON message definitions). They hold what Kafka's MessageSpec, StructSpec and FieldSpec hold
// after parsing, with the versions each generated class is written for (parentVersions) so
// that the interpreter reproduces the version checks Kafka's generator compiles in.

// versionRange is Kafka's Versions: lowest..highest, empty when lowest > highest ("none").
// "N+" is N..32767 (Short.MAX_VALUE).
type versionRange struct{ lowest, highest int16 }

// noVersions is Versions.NONE.
var noVersions = versionRange{0, -1}

// fieldKind is a field's FieldType.
type fieldKind uint8

const (
	kindBool fieldKind = iota + 1
	kindInt8
	kindInt16
	kindUint16
	kindInt32
	kindUint32
	kindInt64
	kindUUID
	kindFloat64
	kindString
	kindBytes
	kindRecords
	kindStruct
	kindArray
)

// fieldDefault is a field's default (FieldSpec.fieldDefault) parsed: isNull for "null";
// otherwise the member of the field's kind (zero when the definition gives none).
type fieldDefault struct {
	isNull bool
	i      int64
	f      float64
	b      bool
	s      string
	uuid   [16]byte
}

// fieldDef is one FieldSpec.
type fieldDef struct {
	name string // camelCaseName: the JSON key
	kind fieldKind
	// elem is an array's element kind; strct is the struct of a struct or struct array.
	elem  fieldKind
	strct *structDef
	// versions, nullable and tagged are the field's versions; flexible is the field's
	// flexibleVersions, or the message's when the field sets none (fieldFlexibleVersions).
	versions, nullable, tagged, flexible versionRange
	tag                                  int32 // -1: none
	zeroCopy                             bool
	def                                  fieldDefault
}

// structDef is one generated class: its versions and the parentVersions it was generated for
// (a message: its validVersions; an inline struct: its parent's; a common struct: its own).
type structDef struct {
	name             string
	versions, parent versionRange
	messageFlexible  versionRange // the message's flexibleVersions: where a tagged-field section follows
	fields           []fieldDef
}

// messageDef is one MessageSpec.
type messageDef struct {
	apiKey   int16 // -1: none ("data" messages)
	typ      string
	name     string
	valid    versionRange
	flexible versionRange
	body     *structDef
}
