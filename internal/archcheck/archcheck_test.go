package archcheck

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "kidx"

// Layers that are no number.
const (
	testSupport = -1 // imported by _test.go files only
	example     = -2 // imports examples/ only
)

// pkgImports is what one package's files import from the module.
type pkgImports struct {
	code  map[string]bool // non-test files
	tests map[string]bool // _test.go files (in-package and external)
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", dir, err)
	}
	return dir
}

var tableRow = regexp.MustCompile("^\\| `(kidx[^`]*)` \\| (\\d+|test|example) \\|")

// readLayers reads the table of docs/architecture.md.
func readLayers(t *testing.T, root string) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	layers := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := tableRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		layer := testSupport
		switch m[2] {
		case "test":
		case "example":
			layer = example
		default:
			layer, _ = strconv.Atoi(m[2])
		}
		if _, dup := layers[m[1]]; dup {
			t.Errorf("docs/architecture.md names %s twice", m[1])
		}
		layers[m[1]] = layer
	}
	if len(layers) < 10 {
		t.Fatalf("docs/architecture.md: only %d packages in the table", len(layers))
	}
	return layers
}

// readImports parses the imports of every .go file of the module, by package.
func readImports(t *testing.T, root string) map[string]*pkgImports {
	t.Helper()
	pkgs := map[string]*pkgImports{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		path := module + "/" + filepath.ToSlash(rel)
		pi := pkgs[path]
		if pi == nil {
			pi = &pkgImports{code: map[string]bool{}, tests: map[string]bool{}}
			pkgs[path] = pi
		}
		into := pi.code
		if strings.HasSuffix(name, "_test.go") {
			into = pi.tests
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if ip == module || strings.HasPrefix(ip, module+"/") {
				into[ip] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func layerName(l int) string {
	switch l {
	case testSupport:
		return "test support"
	case example:
		return "example"
	}
	return fmt.Sprintf("layer %d", l)
}

// allowed says whether a file of package `from` (a test file when inTest) may import `to`.
func allowed(from, to int, inTest bool) bool {
	switch {
	case from == example:
		return to == example
	case to == example:
		return inTest
	case to == testSupport:
		return inTest || from == testSupport
	case from == testSupport:
		return to <= 1
	case inTest:
		return to <= from
	}
	return to < from
}

// TestImportsFollowTheLayers: docs/architecture.md, "A package imports only packages of lower
// layers; its tests may also import packages of its own layer (never a higher one)".
func TestImportsFollowTheLayers(t *testing.T) {
	root := moduleRoot(t)
	layers := readLayers(t, root)
	pkgs := readImports(t, root)
	var paths []string
	for p := range pkgs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		from, ok := layers[p]
		if !ok {
			t.Errorf("%s is not in docs/architecture.md's table: give it a layer", p)
			continue
		}
		for _, kind := range []struct {
			imports map[string]bool
			inTest  bool
		}{{pkgs[p].code, false}, {pkgs[p].tests, true}} {
			for imp := range kind.imports {
				if imp == p {
					continue // an external test package importing its own package
				}
				to, ok := layers[imp]
				if !ok {
					t.Errorf("%s imports %s, which is not in docs/architecture.md's table", p, imp)
					continue
				}
				if !allowed(from, to, kind.inTest) {
					where := "its code"
					if kind.inTest {
						where = "its tests"
					}
					t.Errorf("%s (%s) imports %s (%s) in %s: against docs/architecture.md's layers", p, layerName(from), imp, layerName(to), where)
				}
			}
		}
	}
	for p := range layers {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("docs/architecture.md names %s, which holds no .go file", p)
		}
	}
}

// TestSegmentNeverReachesModel: docs/architecture.md, "The twin rule": segment never imports
// model, in its code or its tests, nor does anything segment imports.
func TestSegmentNeverReachesModel(t *testing.T) {
	pkgs := readImports(t, moduleRoot(t))
	const seg, model = module + "/segment", module + "/model"
	seen := map[string]bool{}
	var reach func(p string, via []string)
	reach = func(p string, via []string) {
		if seen[p] {
			return
		}
		seen[p] = true
		pi := pkgs[p]
		if pi == nil {
			return
		}
		next := pi.code
		if p == seg {
			next = map[string]bool{}
			for imp := range pi.code {
				next[imp] = true
			}
			for imp := range pi.tests {
				next[imp] = true
			}
		}
		for imp := range next {
			path := append(append([]string(nil), via...), imp)
			if imp == model {
				t.Errorf("segment reaches model: %s", strings.Join(path, " -> "))
				continue
			}
			reach(imp, path)
		}
	}
	reach(seg, []string{seg})
	if len(seen) < 2 {
		t.Fatalf("segment imports nothing of the module: %v", seen)
	}
}
