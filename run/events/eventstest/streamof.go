package eventstest

import "testing"

// StreamOf validates out, a whole stream of events, against the schema
// and returns its events; it ends the test when the schema does not
// compile or out is not a valid stream.
func StreamOf(t testing.TB, out []byte) []Event {
	t.Helper()
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	evs, err := v.Stream(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return evs
}
