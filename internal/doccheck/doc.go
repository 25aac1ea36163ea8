// Package doccheck keeps the repository's citations self-contained. Its test walks every .go,
// .md and Makefile of the module, and the '#' comment lines of the .txt scripts, and fails on a
// citation of a document that is not in the repository (the original contract, the original
// Kafka semantics notes, the seed blog posts by file), on a mention of the seed posts with no
// docs/background.md reference within two lines, and on a "docs/contract.md §N" or
// "docs/kafka.md §N" whose section N is not a heading of that document. Bare "§N" inside
// docs/contract.md and docs/kafka.md must name one of their own headings.
//
// The package has no code of its own: the rules live in the test, which reads about 300 small
// files and runs in well under a second.
package doccheck
