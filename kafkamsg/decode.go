package kafkamsg

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
)

// The interpreter: one reader and one JSON writer for every generated table, doing what
// Kafka's generated classes do. MessageDataGenerator.generateClassReader compiles each version
// test against the versions a class can be read at (VersionConditional); member reproduces
// that compiled test, so a message read at a version outside its validVersions (which
// MetadataRecordSerde and CoordinatorRecordSerde's keys allow) reads exactly as in Kafka.

func (v versionRange) empty() bool { return v.lowest > v.highest }

// intersect is Versions.intersect.
func (v versionRange) intersect(o versionRange) versionRange {
	r := versionRange{max(v.lowest, o.lowest), min(v.highest, o.highest)}
	if r.lowest > r.highest {
		return noVersions
	}
	return r
}

// subtract is Versions.subtract; ok is false where Kafka's returns null (two ranges).
func (v versionRange) subtract(o versionRange) (versionRange, bool) {
	if o.lowest <= v.lowest {
		switch {
		case o.highest >= v.highest:
			return noVersions, true
		case o.highest < v.lowest:
			return v, true
		default:
			return versionRange{o.highest + 1, v.highest}, true
		}
	} else if o.highest >= v.highest {
		newHighest := int(o.lowest) - 1
		if newHighest < 0 || newHighest >= int(v.highest) {
			return v, true
		}
		return versionRange{v.lowest, int16(newHighest)}, true
	}
	return versionRange{}, false
}

// member is the test VersionConditional.forVersions(containing, possible).generate compiles
// for version: a full range check, a lower or upper bound, or a constant, depending on how
// possible (the versions the generated code can run at) sits against containing.
func member(containing, possible versionRange, version int16) bool {
	if possible.lowest < containing.lowest {
		switch {
		case possible.highest > containing.highest:
			return version >= containing.lowest && version <= containing.highest
		case possible.highest >= containing.lowest:
			return version >= containing.lowest
		default:
			return false
		}
	}
	if possible.highest >= containing.lowest && possible.lowest <= containing.highest {
		if possible.highest > containing.highest {
			return version <= containing.highest
		}
		return true
	}
	return false
}

// null is a null string, bytes, array, struct or records field.
type null struct{}

// structValue is a read message or struct: one value per field of def (bool, int64, float64,
// [16]byte, string, []byte, []any, *structValue or null{}), and whether unknown tagged
// fields were read (they count in the generated equals).
type structValue struct {
	def           *structDef
	vals          []any
	unknownTagged bool
}

// readStruct is the generated read(Readable, short) of def's class.
func readStruct(r *reader, def *structDef, version int16) *structValue {
	sv := &structValue{def: def, vals: make([]any, len(def.fields))}
	if r.err != nil {
		return sv
	}
	if !member(def.parent, def.versions, version) {
		r.fail(&UnknownVersionError{Message: def.name, Version: version, kafka: fmt.Sprintf("Can't read version %d of %s", version, def.name)})
		return sv
	}
	cur := def.parent.intersect(def.versions)
	for i := range def.fields {
		f := &def.fields[i]
		mandatory, _ := f.versions.subtract(f.tagged) // the generator refuses two ranges
		if member(mandatory, cur, version) {
			sv.vals[i] = readField(r, f, cur.intersect(mandatory), version, false)
		} else {
			sv.vals[i] = defaultValue(f)
		}
		if r.err != nil {
			return sv
		}
	}
	if !member(def.messageFlexible, cur, version) {
		return sv
	}
	curFlexible := cur.intersect(def.messageFlexible)
	n := r.readUnsignedVarint()
	for i := int32(0); i < n && r.err == nil; i++ {
		tag := r.readUnsignedVarint()
		size := r.readUnsignedVarint()
		if r.err != nil {
			break
		}
		known := false
		for j := range def.fields {
			f := &def.fields[j]
			validTagged := f.versions.intersect(f.tagged)
			if validTagged.empty() || f.tag != tag {
				continue
			}
			known = true
			if !member(validTagged, curFlexible, version) {
				r.fail(&ReadError{Kafka: fmt.Sprintf("Tag %d is not valid for version %d", tag, version)})
				break
			}
			// Kafka reads the field and does not hold it to the size the tag gave.
			sv.vals[j] = readField(r, f, curFlexible.intersect(validTagged), version, true)
			break
		}
		if !known {
			// Readable.readUnknownTaggedField: the bytes are kept, not interpreted.
			r.readArray(size)
			sv.unknownTagged = true
		}
	}
	return sv
}

// readField reads one field present at version (possible: the versions the generated code
// reading it can run at).
func readField(r *reader, f *fieldDef, possible versionRange, version int16, tagged bool) any {
	switch f.kind {
	case kindStruct:
		// generateStructReader: a nullable struct starts with a byte (tagged: a varint) that
		// is negative (tagged: not positive) for null.
		if member(f.nullable, possible, version) {
			if tagged {
				if r.readUnsignedVarint() <= 0 {
					return null{}
				}
			} else if r.readByte() < 0 {
				return null{}
			}
		}
		return readStruct(r, f.strct, version)
	case kindString, kindBytes, kindRecords, kindArray:
		return readVariableLength(r, f.flexible, f.name, f.kind, f, possible, f.nullable, f.zeroCopy, version)
	}
	return readPrimitive(r, f.kind, version)
}

func readPrimitive(r *reader, kind fieldKind, version int16) any {
	switch kind {
	case kindBool:
		return r.readByte() != 0
	case kindInt8:
		return int64(r.readByte())
	case kindInt16:
		return int64(r.readShort())
	case kindUint16:
		return int64(uint16(r.readShort()))
	case kindInt32:
		return int64(r.readInt())
	case kindUint32:
		return int64(uint32(r.readInt()))
	case kindInt64:
		return r.readLong()
	case kindUUID:
		return r.readUUID()
	case kindFloat64:
		return r.readDouble()
	}
	r.fail(fmt.Errorf("kafkamsg: no reader for field kind %d", kind))
	return nil
}

// readVariableLength is generateVariableLengthReader: the length (compact: unsigned varint
// minus one; otherwise int16 for strings, int32 for the rest), null where negative, then the
// contents. f gives an array's element kind and struct.
func readVariableLength(r *reader, flexible versionRange, name string, kind fieldKind, f *fieldDef, possible, nullable versionRange, zeroCopy bool, version int16) any {
	var length int32
	if member(flexible, possible, version) {
		length = r.readUnsignedVarint() - 1 // Java int arithmetic: wraps
	} else if kind == kindString {
		length = int32(r.readShort())
	} else {
		length = r.readInt()
	}
	if r.err != nil {
		return null{}
	}
	if length < 0 {
		if member(nullable, possible, version) {
			return null{}
		}
		r.fail(&ReadError{Kafka: fmt.Sprintf("non-nullable field %s was serialized as null", name)})
		return null{}
	}
	switch kind {
	case kindString:
		if length > 0x7fff {
			r.fail(&ReadError{Kafka: fmt.Sprintf("string field %s had invalid length %d", name, length)})
			return null{}
		}
		return string(r.readArray(length))
	case kindBytes:
		if zeroCopy {
			return r.readByteBuffer(length)
		}
		return r.readArray(length)
	case kindRecords:
		return r.readByteBuffer(length)
	}
	// An array: bounded by the remaining bytes before anything is allocated.
	if int(length) > r.remaining() {
		r.fail(&ReadError{Kafka: fmt.Sprintf("Tried to allocate a collection of size %d, but there are only %d bytes remaining.", length, r.remaining())})
		return null{}
	}
	elems := make([]any, 0, length)
	for i := int32(0); i < length && r.err == nil; i++ {
		switch f.elem {
		case kindString, kindBytes:
			elems = append(elems, readVariableLength(r, flexible, name+" element", f.elem, nil, possible, noVersions, false, version))
		case kindStruct:
			elems = append(elems, readStruct(r, f.strct, version))
		default:
			elems = append(elems, readPrimitive(r, f.elem, version))
		}
	}
	return elems
}

// defaultValue is the value FieldSpec.fieldDefault gives a field not read.
func defaultValue(f *fieldDef) any {
	if f.def.isNull || f.kind == kindRecords {
		return null{}
	}
	switch f.kind {
	case kindBool:
		return f.def.b
	case kindInt8, kindInt16, kindUint16, kindInt32, kindUint32, kindInt64:
		return f.def.i
	case kindFloat64:
		return f.def.f
	case kindUUID:
		return f.def.uuid
	case kindString:
		return f.def.s
	case kindBytes:
		return []byte{}
	case kindArray:
		return []any{}
	case kindStruct:
		return defaultStruct(f.strct)
	}
	return null{}
}

func defaultStruct(def *structDef) *structValue {
	sv := &structValue{def: def, vals: make([]any, len(def.fields))}
	for i := range def.fields {
		sv.vals[i] = defaultValue(&def.fields[i])
	}
	return sv
}

// equalValues is the generated equals of two field values (Objects.equals, Arrays.equals,
// the structs' equals, which also compares their unknown tagged fields).
func equalValues(a, b any) bool {
	switch x := a.(type) {
	case null:
		_, ok := b.(null)
		return ok
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValues(x[i], y[i]) {
				return false
			}
		}
		return true
	case *structValue:
		y, ok := b.(*structValue)
		if !ok || x.def != y.def || x.unknownTagged != y.unknownTagged {
			return false
		}
		for i := range x.vals {
			if !equalValues(x.vals[i], y.vals[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	}
	return a == b
}

// nonDefault is FieldSpec.generateNonDefaultValueCheck: whether a tagged field is written.
func nonDefault(f *fieldDef, v any) bool {
	_, isNull := v.(null)
	switch f.kind {
	case kindArray, kindBytes:
		switch {
		case f.def.isNull:
			return !isNull
		case f.nullable.empty():
			return !isNull && lengthOf(v) != 0
		default:
			return isNull || lengthOf(v) != 0
		}
	case kindString, kindStruct, kindUUID:
		switch {
		case f.def.isNull:
			return !isNull
		case f.nullable.empty():
			return !equalValues(v, defaultValue(f))
		default:
			return isNull || !equalValues(v, defaultValue(f))
		}
	case kindRecords:
		return !isNull
	}
	return !equalValues(v, defaultValue(f))
}

func lengthOf(v any) int {
	switch x := v.(type) {
	case []byte:
		return len(x)
	case []any:
		return len(x)
	}
	return 0
}

// writeStruct is the generated JsonConverter.write(obj, version) of sv's class
// (JsonConverterGenerator.generateWrite).
func writeStruct(sv *structValue, version int16) (*Object, error) {
	def := sv.def
	if !member(def.versions, def.parent, version) {
		return nil, &UnknownVersionError{Message: def.name, Version: version, kafka: fmt.Sprintf("Can't write version %d of %s", version, def.name)}
	}
	cur := def.parent.intersect(def.versions)
	obj := &Object{}
	for i := range def.fields {
		f := &def.fields[i]
		if !member(f.versions, cur, version) {
			// Absent at this version: the value read is the default, so the generated
			// non-ignorable check has nothing to refuse.
			continue
		}
		present := cur.intersect(f.versions)
		v := sv.vals[i]
		if member(f.tagged, present, version) && !nonDefault(f, v) {
			continue // a tagged field is written only when it is not its default
		}
		jv, err := fieldJSON(f, v, version)
		if err != nil {
			return nil, err
		}
		obj.Set(f.name, jv)
	}
	return obj, nil
}

// fieldJSON is generateTargetToJson: ints as numbers (int8/int16 ShortNode, int32/uint16
// IntNode, int64/uint32 LongNode), uuid as Uuid.toString, float64 a DoubleNode, a null
// variable-length value as NullNode. (Kafka tests for null only where the field can be null
// (IsNullConditional); the reader returns null nowhere else.)
func fieldJSON(f *fieldDef, v any, version int16) (Value, error) {
	switch f.kind {
	case kindString, kindBytes, kindRecords, kindArray, kindStruct:
		if _, isNull := v.(null); isNull {
			return Null{}, nil
		}
	}
	return valueJSON(f.kind, f.elem, v, version)
}

func valueJSON(kind, elem fieldKind, v any, version int16) (Value, error) {
	switch kind {
	case kindBool:
		return Bool(v.(bool)), nil
	case kindInt8, kindInt16, kindUint16, kindInt32, kindUint32, kindInt64:
		return Int(v.(int64)), nil
	case kindUUID:
		u := v.([16]byte)
		return String(uuidString(u)), nil
	case kindFloat64:
		return Float(v.(float64)), nil
	case kindString:
		return String(v.(string)), nil
	case kindBytes:
		return Bytes(v.([]byte)), nil
	case kindRecords:
		// KIP-673: write(obj, version) serializes records as an empty BinaryNode.
		return Bytes{}, nil
	case kindStruct:
		return writeStruct(v.(*structValue), version)
	case kindArray:
		elems := v.([]any)
		arr := make(Array, 0, len(elems))
		for _, e := range elems {
			jv, err := valueJSON(elem, 0, e, version)
			if err != nil {
				return nil, err
			}
			arr = append(arr, jv)
		}
		return arr, nil
	}
	return nil, fmt.Errorf("kafkamsg: no JSON for field kind %d", kind)
}

// uuidString is Uuid.toString: the 16 bytes in URL-safe base64 without padding.
func uuidString(u [16]byte) string {
	return base64.RawURLEncoding.EncodeToString(u[:])
}

// toSnakeCase is MessageGenerator.toSnakeCase: an underscore before each capital that follows
// a lower-case letter or digit, everything lower-cased ("TopicRecord" -> "topic_record").
func toSnakeCase(s string) string {
	var b strings.Builder
	prevCapital := true
	for _, c := range s {
		if c >= 'A' && c <= 'Z' {
			if !prevCapital {
				b.WriteByte('_')
			}
			b.WriteRune(c + ('a' - 'A'))
			prevCapital = true
		} else {
			b.WriteRune(c)
			prevCapital = false
		}
	}
	return b.String()
}
