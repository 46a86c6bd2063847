package telemetry

import "encoding/binary"

// The protobuf wire format, the little of it the OTLP messages need.
// google.golang.org/protobuf/encoding/protowire would do, but it links
// the module's internal/detrand, whose initialiser reads the executable to
// hash it: 0.2 ms at every start, telemetry on or off.

// wireType is a protobuf wire type.
type wireType byte

const (
	varintType  wireType = 0
	fixed64Type wireType = 1
	bytesType   wireType = 2
	fixed32Type wireType = 5
)

// appendTag appends the key of field num of type t.
func appendTag(b []byte, num int, t wireType) []byte {
	return binary.AppendUvarint(b, uint64(num)<<3|uint64(t))
}

// appendLen appends v prefixed with its length.
func appendLen(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

func appendFixed64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }
func appendFixed32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

func encodeBool(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}
