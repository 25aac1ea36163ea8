// Package archcheck keeps the packages in their layers. Its test reads the table of
// docs/architecture.md (package, layer) and the imports of every .go file of the module, and
// fails when a package imports one of its own or a higher layer (a test file: a higher layer),
// when code outside _test.go files imports a test-support package, when an example imports
// kidx outside examples/ (or code outside tests imports an example), when kidx/segment or anything it imports reaches kidx/model (in code
// or tests: the twin rule), and when a package is missing from the table or the table names
// one that is gone.
//
// The package has no code of its own: the rules live in the test.
package archcheck
