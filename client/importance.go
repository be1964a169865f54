package client

import (
	"context"

	"github.com/cbandit/cbandit/service/api"
)

// Importance returns which parameters of a study matter (GET
// /studies/{id}/importance): each parameter's share of the variance of a
// GP fitted to the evaluated configurations that its main effect explains,
// most important first. A study with too few observations is an *api.Error
// with status 409 and code "too_few_observations".
func (c *Client) Importance(ctx context.Context, id string) (api.Importance, error) {
	var out api.Importance
	err := c.do(ctx, "GET", studyPath(id, "/importance"), nil, &out)
	return out, err
}
