// Package smt proves kidx's index invariants for every configuration: Kafka's append rule,
// roll check and lookup cost written as a symbolic transition system over integers (SMT-LIB 2,
// linear integer arithmetic), each property proved by k-induction with z3 through its text
// interface on stdin. A claim that fails comes back as the solver's model, turned into a
// workload that `kidx sim` replays and confirmed through model. docs/proofs-parametric.md
// says what each proof states, under which assumptions, and how long it takes.
//
// Files, one idea each:
//
//   - system.go: the transition system (System, Params, Input, State, Observed): one
//     partition's active segment with single-batch appends (both rules), or appends of one
//     or two batches under either rule (System.TwoBatchAppends, System.Rule); model's
//     mutants; segment.index.bytes and candidate fix (a)'s roll for the follower overflow
//     (System.IndexBytes, System.RollOnIndexRoom).
//   - eval.go: concrete steps and runs evaluated in the SMT text itself (System.Eval,
//     System.EvalRuns), which the tests compare with model.Log.
//   - induction.go: k-induction of one obligation (base case per path length, inductive
//     step, non-vacuity checks), deepening k until decided.
//   - obligations.go: the properties, their strengthening invariants and assumptions; the
//     follower overflow's question and fix (a)'s invariant (candidateObligations, FixAEra).
//   - counterexample.go: a failed base case's model as a model.Workload, replayed
//     through props' checks (or model directly).
//   - report.go: Prove, Options, Report, Result: the API `kidx prove --parametric` calls.
//   - text.go: Report.WriteText, the report in words for a terminal.
//   - emit.go: EmitSMT, each obligation as a standalone .smt2 file; WriteWorkloads, each
//     refuted claim's counterexample as a workload file (kidx prove --parametric --out).
//   - solver.go, session.go, sexpr.go: running z3 (whole scripts, or an interactive
//     session) and reading its S-expression answers.
package smt
