package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"kidx/internal/realdata"
)

// The reference adapters of examples/ (docs/against.md, "Reference adapters"), built or found
// for the tests of kidx diff --against.

var goReaderOnce struct {
	sync.Once
	path string
	err  error
}

// goReader builds examples/goreader once per test binary and returns the program's path.
func goReader(t *testing.T) string {
	t.Helper()
	goReaderOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kidx-goreader-")
		if err != nil {
			goReaderOnce.err = err
			return
		}
		goReaderOnce.path, goReaderOnce.err = buildGoReader(dir, nil)
	})
	if goReaderOnce.err != nil {
		t.Fatal(goReaderOnce.err)
	}
	return goReaderOnce.path
}

// buildGoReader builds examples/goreader into dir; replace maps a file of the module (relative
// to its root) to the path of a changed copy (go build -overlay): a planted bug.
func buildGoReader(dir string, replace map[string]string) (string, error) {
	root, err := realdata.ModuleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "goreader")
	args := []string{"build", "-o", bin}
	if len(replace) > 0 {
		ov := map[string]map[string]string{"Replace": {}}
		for rel, copy := range replace {
			ov["Replace"][filepath.Join(root, rel)] = copy
		}
		data, _ := json.Marshal(ov)
		p := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return "", err
		}
		args = append(args, "-overlay", p)
	}
	cmd := exec.Command("go", append(args, "./examples/goreader")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{err: err, out: string(out)}
	}
	return bin, nil
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "go build examples/goreader: " + e.err.Error() + "\n" + e.out
}

// plantedGoReader builds examples/goreader with one planted bug: the source line old of
// examples/goreader/kafkaindex/kafkaindex.go replaced by new. The line must be there (a plant
// that changes nothing would make its test pass for nothing).
func plantedGoReader(t *testing.T, old, new string) string {
	t.Helper()
	root, err := realdata.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	const rel = "examples/goreader/kafkaindex/kafkaindex.go"
	src, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(src), old) != 1 {
		t.Fatalf("%s: %q is not there exactly once: the planted bug would change nothing", rel, old)
	}
	dir := t.TempDir()
	copy := filepath.Join(dir, "kafkaindex.go")
	if err := os.WriteFile(copy, []byte(strings.Replace(string(src), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err := buildGoReader(dir, map[string]string{rel: copy})
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// pythonReader is the command line of examples/python/kafka_index_reader.py with args. Without
// python3 the test is skipped, loudly, unless CI is set (CI has python3): then it fails.
func pythonReader(t *testing.T, args ...string) string {
	t.Helper()
	py, err := python3()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("python3 cannot be run (%v), and CI is set: the Python reference adapter's test must run in CI", err)
		}
		t.Skipf("SKIPPED: python3 cannot be run here (%v), so the Python reference adapter was not checked", err)
	}
	root, err := realdata.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	line := []string{shellQuote(py), shellQuote(filepath.Join(root, "examples", "python", "kafka_index_reader.py"))}
	return strings.Join(append(line, args...), " ")
}

var python3Once struct {
	sync.Once
	path string
	err  error
}

// python3 is the interpreter itself (sys.executable), not the wrapper PATH may give (pyenv's
// shim is a shell script that doubles a reader's start-up, which every case pays).
func python3() (string, error) {
	python3Once.Do(func() {
		if _, python3Once.err = exec.LookPath("python3"); python3Once.err != nil {
			return
		}
		out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
		python3Once.path, python3Once.err = strings.TrimSpace(string(out)), err
		if python3Once.err == nil && python3Once.path == "" {
			python3Once.err = errors.New("python3 does not name its executable")
		}
	})
	return python3Once.path, python3Once.err
}

// shellQuote quotes s for the shell line --against runs.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
