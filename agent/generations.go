// The generations of the defaults and the papers' settings, read from the algorithms' declarations (bandit.Change, ParamDoc.Paper).

package agent

import (
	"fmt"
	"slices"

	"github.com/cbandit/cbandit/bandit"
)

// A Changed is one change of a parameter's default between generations,
// as the declarations of specs give it: Change.Until+1 is the generation
// that made it, Algorithms (by name) those whose declaration carries it.
type Changed struct {
	Param string
	bandit.Change
	Algorithms []string
}

// Changes returns every change of a default declared in specs, by the
// generation that made it, then in the order of the first declaration
// that carries it (one entry for equal changes of one parameter).
func Changes(specs []Spec) []Changed {
	var out []Changed
	for _, s := range specs {
		for _, d := range s.Params {
			p := d.Describe()
			for _, c := range p.Earlier {
				i := slices.IndexFunc(out, func(o Changed) bool { return o.Param == p.Name && o.Change == c })
				if i < 0 {
					out = append(out, Changed{Param: p.Name, Change: c})
					i = len(out) - 1
				}
				out[i].Algorithms = append(out[i].Algorithms, s.Name)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Changed) int { return a.Until - b.Until })
	return out
}

// PaperDefaults returns the papers' values of the parameters declared in
// specs (ParamDoc.Paper): the settings every reproduction gives to each of
// its algorithms that declares them. Two declarations of one parameter
// with different papers' values are an error.
func PaperDefaults(specs []Spec) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range specs {
		for _, d := range s.Params {
			p := d.Describe()
			if p.Paper == "" {
				continue
			}
			if v, ok := out[p.Name]; ok && v != p.Paper {
				return nil, fmt.Errorf("%s: parameter %s: papers' value %q, another algorithm's %q", s.Name, p.Name, p.Paper, v)
			}
			out[p.Name] = p.Paper
		}
	}
	return out, nil
}

// PinEarlier sets on ps the defaults that algorithm had in generation gen
// and a later generation up to current changed (bandit.PinEarlier on its
// declaration in specs), where ps does not set them; an unknown algorithm
// is left to whoever builds it.
func PinEarlier(specs []Spec, algorithm string, gen, current int, ps bandit.Params) {
	if i := slices.IndexFunc(specs, func(s Spec) bool { return s.Name == algorithm }); i >= 0 {
		bandit.PinEarlier(specs[i].Params, gen, current, ps)
	}
}
