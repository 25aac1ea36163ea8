package smt_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"kidx/props/smt"
)

// How `kidx prove --parametric` uses the package: prove, print, write the obligations for
// other solvers, and exit 1 when an invariant is violated. (No Output: it needs z3.)
func ExampleProve() {
	rep, err := smt.Prove(context.Background(), smt.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // smt.ErrNoZ3 says how to install z3
		os.Exit(2)
	}
	_ = rep.WriteText(os.Stdout)
	if _, err := smt.EmitSMT("obligations", rep); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	for _, p := range rep.Properties {
		if p.Kind == "invariant" && p.Result != smt.Proved {
			os.Exit(1)
		}
	}
}
