package service

import (
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/space"
)

// paramVars are the discrete coordinates of a typed space's encoding
// (space.Vars). A study of generation api.DefaultsMixed and later gives its
// learner the encoded cube with them, searched as a mixed space at every
// decision instead of a candidate set fixed at creation.
func paramVars(ps []api.Parameter) []domain.Var { return space.Vars(toSpace(ps)) }
