package service

import (
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/service/api"
)

// paramVars are the discrete coordinates of a typed space's encoding (see
// params.go): one per int, one one-hot block per categorical. A study of
// generation api.DefaultsMixed and later gives its learner the encoded
// cube with them, and the learner searches it as a mixed space
// (agent: mixedSearch) instead of choosing among candidates fixed at
// creation.
func paramVars(ps []api.Parameter) []domain.Var {
	var vs []domain.Var
	at := 0
	for _, p := range ps {
		switch p.Type {
		case ParamCategorical:
			vs = append(vs, domain.Var{At: at, Width: len(p.Choices), Choices: true})
			at += len(p.Choices)
		case ParamInt:
			vs = append(vs, domain.Var{At: at, Width: 1, Low: *p.Low, High: *p.High, Log: p.Log})
			at++
		default:
			at++
		}
	}
	return vs
}
