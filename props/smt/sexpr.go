package smt

import (
	"fmt"
	"strconv"
	"strings"
)

// sexpr is one S-expression of a solver's answer: an atom (Atom set) or a list.
type sexpr struct {
	Atom string
	List []sexpr
	// isList separates the empty list "()" from an atom.
	isList bool
}

func (e sexpr) String() string {
	if !e.isList {
		return e.Atom
	}
	parts := make([]string, len(e.List))
	for i, x := range e.List {
		parts[i] = x.String()
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// parseSexprs reads every S-expression of text, in order: the answers of an SMT-LIB 2
// session ("sat", "unsat", "unknown", get-value's "((x 1) (y (- 2)))", "(error "…")").
func parseSexprs(text string) ([]sexpr, error) {
	var out []sexpr
	p := sexprParser{text: text}
	for {
		p.skipSpace()
		if p.i >= len(p.text) {
			return out, nil
		}
		e, err := p.parse()
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

type sexprParser struct {
	text string
	i    int
}

func (p *sexprParser) skipSpace() {
	for p.i < len(p.text) {
		switch c := p.text[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == ';': // a comment runs to the end of the line
			for p.i < len(p.text) && p.text[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *sexprParser) parse() (sexpr, error) {
	p.skipSpace()
	if p.i >= len(p.text) {
		return sexpr{}, fmt.Errorf("solver output ends inside an S-expression")
	}
	switch c := p.text[p.i]; c {
	case '(':
		p.i++
		e := sexpr{isList: true}
		for {
			p.skipSpace()
			if p.i >= len(p.text) {
				return sexpr{}, fmt.Errorf("solver output ends inside a list")
			}
			if p.text[p.i] == ')' {
				p.i++
				return e, nil
			}
			x, err := p.parse()
			if err != nil {
				return sexpr{}, err
			}
			e.List = append(e.List, x)
		}
	case ')':
		return sexpr{}, fmt.Errorf("unbalanced ')' at byte %d of the solver output", p.i)
	case '"': // a string literal; "" is an escaped quote
		start := p.i
		p.i++
		for p.i < len(p.text) {
			if p.text[p.i] == '"' {
				if p.i+1 < len(p.text) && p.text[p.i+1] == '"' {
					p.i += 2
					continue
				}
				p.i++
				return sexpr{Atom: p.text[start:p.i]}, nil
			}
			p.i++
		}
		return sexpr{}, fmt.Errorf("unterminated string in the solver output")
	case '|':
		end := strings.IndexByte(p.text[p.i+1:], '|')
		if end < 0 {
			return sexpr{}, fmt.Errorf("unterminated |symbol| in the solver output")
		}
		a := p.text[p.i+1 : p.i+1+end]
		p.i += end + 2
		return sexpr{Atom: a}, nil
	}
	start := p.i
	for p.i < len(p.text) && !strings.ContainsRune(" \t\r\n()\";", rune(p.text[p.i])) {
		p.i++
	}
	return sexpr{Atom: p.text[start:p.i]}, nil
}

// intValue reads an SMT-LIB integer value: a numeral or (- numeral).
func intValue(e sexpr) (int64, error) {
	if e.isList {
		if len(e.List) == 2 && !e.List[0].isList && e.List[0].Atom == "-" {
			v, err := intValue(e.List[1])
			return -v, err
		}
		return 0, fmt.Errorf("%s is not an integer value", e)
	}
	return strconv.ParseInt(e.Atom, 10, 64)
}

// boolValue reads true or false.
func boolValue(e sexpr) (bool, error) {
	switch e.Atom {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%s is not a Boolean value", e)
}
