package smt

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The answers z3 prints are read back as written: atoms, nested lists, negative numbers,
// strings with escaped quotes.
func TestParseSexprs(t *testing.T) {
	es, err := parseSexprs("sat\nunsat\n((x 1)\n (y (- 2)) (|a b| true))\n(error \"line 1: \"\"x\"\"\")\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 4 || es[0].Atom != "sat" || es[1].Atom != "unsat" {
		t.Fatalf("parsed %v", es)
	}
	vals, err := values(es[2])
	if err != nil {
		t.Fatal(err)
	}
	m, err := named([]string{"x", "y", "a b"}, vals)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := intValue(m["x"]); v != 1 {
		t.Errorf("x = %v", m["x"])
	}
	if v, _ := intValue(m["y"]); v != -2 {
		t.Errorf("y = %v", m["y"])
	}
	if v, _ := boolValue(m["a b"]); !v {
		t.Errorf("|a b| = %v", m["a b"])
	}
	if es[3].String() != `(error "line 1: ""x""")` {
		t.Errorf("error answer %s", es[3])
	}
	for _, bad := range []string{"(sat", "sat)", `("open`, "(|x"} {
		if _, err := parseSexprs(bad); err == nil {
			t.Errorf("%q parsed without error", bad)
		}
	}
}

// A script z3 rejects is an error naming z3's message, not a wrong answer.
func TestSolverRejectsBadScript(t *testing.T) {
	z := needZ3(t)
	_, err := z.run(context.Background(), "(declare-const x Int)\n(assert (= x y))\n(check-sat)\n")
	if err == nil || !strings.Contains(err.Error(), "z3 rejected the script") {
		t.Fatalf("err = %v", err)
	}
	s, err := z.start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if err := s.send("(assert (= x y))\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.checkSat(); err == nil || !strings.Contains(err.Error(), "z3 rejected the script") {
		t.Fatalf("session err = %v", err)
	}
}

// A check that runs out of its time is "unknown", not an error: the proof says so.
func TestCheckTimeoutIsUnknown(t *testing.T) {
	z := needZ3(t)
	// 200 ms: z3 4.8.12 loses a timer of 1 ms now and then (the check then runs on).
	z.CheckTimeout, z.Timeout = 200*time.Millisecond, 20*time.Second
	s, err := z.start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	// A nonlinear problem z3 cannot settle in 200 ms (x^3 + y^3 = z^3, positive;
	// without the timeout z3 4.8.12 runs on for more than 5 s).
	if err := s.send("(declare-const x Int)(declare-const y Int)(declare-const z Int)(assert (and (> x 0) (> y 0) (> z 0) (= (+ (* x x x) (* y y y)) (* z z z))))\n"); err != nil {
		t.Fatal(err)
	}
	a, err := s.checkSat()
	if err != nil {
		t.Fatal(err)
	}
	if a != answerUnknown {
		t.Fatalf("answer %s, want unknown", a)
	}
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		kind, result, want string
	}{{"question", Violated, "finding"}, {"invariant", Violated, Violated}, {"question", Proved, Proved}, {"invariant", Unknown, Unknown}} {
		if got := (Result{Kind: c.kind, Result: c.result}).Verdict(); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.kind, c.result, got, c.want)
		}
	}
}

// Without z3, Prove says how to get it; an unknown property is refused by name.
func TestProveErrors(t *testing.T) {
	z := needZ3(t)
	if _, err := Prove(context.Background(), Options{Solver: z, Properties: []string{"NoSuchProperty"}}); err == nil ||
		!strings.Contains(err.Error(), `no parametric proof of "NoSuchProperty"`) {
		t.Fatalf("unknown property: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Prove(context.Background(), Options{}); err != ErrNoZ3 {
		t.Fatalf("without z3: %v, want ErrNoZ3", err)
	}
	if !strings.Contains(ErrNoZ3.Error(), "apt-get install z3") {
		t.Errorf("ErrNoZ3 does not say how to install z3: %v", ErrNoZ3)
	}
}
