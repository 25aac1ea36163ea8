// Package corpus makes test cases for other people's Kafka index readers (issue 14): random
// workloads written to real segment files by kidx's writer, each with the answers a correct
// reader must give (expected.json, docs/corpus.md) computed by kidx's own readers on those
// files and checked against the model first. A share of the cases are damaged on purpose
// (truncations, zero tails, flipped bytes, hostile length fields, entries out of order), and
// their answers say what Kafka's reader does on the damaged files: an answer, or an error at a
// file and byte.
//
// Generation is deterministic: case i of seed s is the same bytes on every run and does not
// depend on the other cases, so a consumer (kidx corpus, later kidx diff --against) can make
// any case alone (WriteCase).
package corpus
