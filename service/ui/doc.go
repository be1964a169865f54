// Package ui is the dashboard of `cbandit serve`, served under /ui/: a list
// of studies (following the pages of GET /studies when it has any) and, per
// study, two views. Rounds: the objective per round with infeasible rounds
// marked and the best feasible value so far, each constraint metric per
// round with its limit, each constraint's violation so far (cumulative
// Σ [g]⁺ and long-term [Σ g]⁺, named; cards give the figure of the
// constraint's kind as GET /studies/{id}/summary reports it), and the
// decision table. Parameters: the parameters' importance (bars, from GET
// /studies/{id}/importance), each metric against each parameter (slice
// plots) and parallel coordinates. Failed evaluations are marked on every
// view, with their reason. The page refreshes every few seconds
// while it is open. Numbers are shown as the API holds them (6 significant
// digits, the exact value in a cell's tooltip); ticks are round.
//
// The assets (HTML, JavaScript, CSS) are embedded in the binary: no CDN, no
// network beyond the server itself, so the dashboard works offline. Charts
// are drawn as SVG by the page's own script; README.md says why no charting
// library is used.
//
// # Tokens
//
// The assets hold no data and are served without a token. Every piece of
// data comes from the API (GET /studies, /studies/{id}, /summary,
// /decisions, /importance) under the API's own rules: when the server has a token, the
// page asks for it in a login field, keeps it in the tab's sessionStorage
// (gone when the tab closes; never in a cookie, so no other site can make
// the browser send it, and never in a URL, so it stays out of logs and
// history) and sends it as "Authorization: Bearer TOKEN" on each of its
// fetch calls. A wrong token shows the login field again.
package ui
