package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"
)

// Stable JSON (docs/schema/README.md): every --format json document names its schema in
// "schema": "kidx.<command>/N", and docs/schema/kidx.<command>.N.json is that schema, in
// JSON Schema 2020-12. This file runs every case of schemaCases (added by the
// schema_*_test.go files, one per family of commands) and validates each document against
// the file its "schema" names, with santhosh-tekuri/jsonschema.

// schemaCase is one command line whose JSON is validated.
type schemaCase struct {
	name string
	// args is the command line after "kidx"; it may build its inputs in t.TempDir().
	args func(t *testing.T) []string
	// want is the schema every document must name, e.g. "kidx.verify/1".
	want string
	// lines: the output is one JSON document per line (kidx dump).
	lines bool
	// exits are the exit codes the case may end with (none given: 0 only).
	exits []int
}

var schemaCases []schemaCase

// schemaName is "kidx.<command>/N"; schemaFile is its file under docs/schema.
var schemaName = regexp.MustCompile(`^kidx\.([a-z][a-z0-9-]*(?:\.[a-z][a-z0-9-]*)*)/([1-9][0-9]*)$`)

func schemaFile(name string) (string, bool) {
	m := schemaName.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	return filepath.Join("..", "..", "docs", "schema", "kidx."+m[1]+"."+m[2]+".json"), true
}

// compileSchema compiles the schema named name (kidx.<command>/N) from docs/schema.
func compileSchema(t testing.TB, c *jsonschema.Compiler, name string) *jsonschema.Schema {
	t.Helper()
	path, ok := schemaFile(name)
	if !ok {
		t.Fatalf("%q is not a schema name (kidx.<command>/N)", name)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(abs)
	if err != nil {
		t.Fatalf("schema %s (%s): %v", name, path, err)
	}
	return s
}

// validateDocument checks one JSON document against the schema its "schema" field names and
// returns that name.
func validateDocument(t testing.TB, c *jsonschema.Compiler, doc []byte) string {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, excerpt(doc))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("the document is not an object:\n%s", excerpt(doc))
	}
	name, _ := obj["schema"].(string)
	if name == "" {
		t.Fatalf(`the document has no "schema" field:\n%s`, excerpt(doc))
	}
	if err := compileSchema(t, c, name).Validate(v); err != nil {
		t.Fatalf("the document does not match %s: %v\n%s", name, err, excerpt(doc))
	}
	return name
}

func excerpt(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// TestCommandJSONMatchesItsSchema runs every schema case; then checks that every schema file
// in docs/schema was validated by some case, and that every command taking --format json has
// a case.
func TestCommandJSONMatchesItsSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	validated := map[string]bool{}
	commands := map[string]bool{}
	for _, sc := range schemaCases {
		t.Run(sc.name, func(t *testing.T) {
			args := sc.args(t)
			commands[commandPath(args)] = true
			stdout, stderr, code := runKidx(t, args...)
			if !slices.Contains(append([]int{0}, sc.exits...), code) {
				t.Fatalf("kidx %s: exit %d\nstderr: %s", strings.Join(args, " "), code, stderr)
			}
			docs := [][]byte{[]byte(stdout)}
			if sc.lines {
				docs = nil
				for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
					docs = append(docs, []byte(l))
				}
			}
			for _, d := range docs {
				if got := validateDocument(t, c, d); got != sc.want {
					t.Errorf("the document names %s, want %s", got, sc.want)
				}
			}
			validated[sc.want] = true
		})
	}
	if testing.Short() || t.Failed() {
		return
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "schema", "kidx.*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "kidx."), ".json")
		i := strings.LastIndex(base, ".")
		name := "kidx." + base[:i] + "/" + base[i+1:]
		if !validated[name] {
			t.Errorf("%s: no schema case validates a document against it", f)
		}
	}
	jsonCmds := jsonCommands(newRootCmd(&bytes.Buffer{}, &bytes.Buffer{}))
	// analyze, check, diff, dump, explain, prove, sim, verify, whatif, write.
	if len(jsonCmds) < 10 {
		t.Errorf("only %d commands found taking --format json: %v", len(jsonCmds), jsonCmds)
	}
	for _, path := range jsonCmds {
		if !commands[path] {
			t.Errorf("kidx %s takes --format json, but no schema case runs it", path)
		}
	}
}

// commandPath is the command a case's arguments run ("check", "diff against").
func commandPath(args []string) string {
	root := newRootCmd(&bytes.Buffer{}, &bytes.Buffer{})
	cmd, _, err := root.Find(args)
	if err != nil || cmd == root {
		return fmt.Sprint(args)
	}
	return strings.TrimPrefix(cmd.CommandPath(), root.Name()+" ")
}

// jsonCommands are the commands whose --format flag accepts json (registerFormat's values).
func jsonCommands(root *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if slices.Contains(formatValues(c), "json") {
			out = append(out, strings.TrimPrefix(c.CommandPath(), root.Name()+" "))
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return out
}

// TestSchemaFilesAreJSONSchemas: every file in docs/schema declares and compiles as JSON
// Schema 2020-12.
func TestSchemaFilesAreJSONSchemas(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "schema", "kidx.*.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			Schema string `json:"$schema"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if head.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema %q, want 2020-12", f, head.Schema)
		}
		abs, _ := filepath.Abs(f)
		if _, err := c.Compile(abs); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
