package against_test

import (
	"fmt"

	"kidx/against"
)

// Compare judges a reader's answers query by query against kidx's: here the reader starts
// phase 1 one entry early for the first offset and walks past a torn tail for the second; for
// the third it meets kidx's error without saying where, which is no mismatch (the place is
// compared only when a reader gives it).
func ExampleCompare() {
	q := against.Questions{
		Queries: []against.Query{
			{Segment: "00000000000000000000", Offset: 35},
			{Segment: "00000000000000000000", Offset: 56},
			{Segment: "00000000000000000000", Offset: 60},
		},
		Want: []against.Answer{
			{Start: 1078, Hit: 1078, Hops: 1},
			{Start: 1304, Hit: -1, Hops: 2},
			{Hops: -1, Err: &against.AnswerError{Message: "Found record size 0 smaller than minimum record overhead (14)", File: "00000000000000000000.log", Byte: 2100}},
		},
	}
	got := []against.Answer{
		{Start: 0, Hit: 1078, Hops: -1},
		{Start: 1304, Hit: 2017, Hops: -1},
		{Hops: -1, Err: &against.AnswerError{Message: "corrupt", Byte: -1}},
	}
	for _, m := range against.Compare(q, got) {
		fmt.Printf("offset %d: %s\n  kidx:   %s\n  reader: %s\n", m.Query.Offset, m.Kind, m.Want, m.Got)
	}
	// Output:
	// offset 35: start
	//   kidx:   start 1078, hit 1078, 1 hop
	//   reader: start 0, hit 1078
	// offset 56: hit
	//   kidx:   start 1304, no hit, 2 hops
	//   reader: start 1304, hit 2017
}
