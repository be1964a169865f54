package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cbandit/cbandit/service/api"
)

// Client talks to one cbandit server. It is safe for concurrent use.
//
// A request the server answers 503 (its store unavailable: a database
// restarting or failing over), 502, 504 or 429 is sent again with backoff,
// honouring the answer's Retry-After, for at most DefaultRetryBudget in all
// (WithRetryBudget): a GET, a PATCH, an observation (a repeat is a no-op)
// and any request with an Idempotency-Key — Suggest sends one of its own —
// whose repeat the server answers with the first answer. Other requests
// (CreateStudy, DeleteStudy, Abandon) are not repeated.
type Client struct {
	base   string
	token  string
	hc     *http.Client
	budget time.Duration
	sleep  func(ctx context.Context, d time.Duration) error
}

// DefaultRetryBudget bounds the time a request spends waiting to be sent
// again: longer than a database's restart or failover, shorter than a
// caller's patience.
const DefaultRetryBudget = 30 * time.Second

// WithRetryBudget bounds the waits between the attempts of a request (0:
// no retry).
func WithRetryBudget(d time.Duration) Option { return func(c *Client) { c.budget = d } }

// Option configures a Client.
type Option func(*Client)

// WithToken sends the bearer token on every request.
func WithToken(token string) Option { return func(c *Client) { c.token = token } }

// WithHTTPClient uses hc instead of http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// New returns a client of the server at baseURL (e.g. "http://127.0.0.1:8080").
func New(baseURL string, opts ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), hc: http.DefaultClient, budget: DefaultRetryBudget, sleep: sleepCtx}
	for _, o := range opts {
		o(c)
	}
	return c
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	return c.doKey(ctx, method, path, "", in, out)
}

// retryStatuses are the answers worth waiting out: the store unavailable
// (503), a proxy without a healthy replica (502, 504), too many requests.
var retryStatuses = map[int]bool{http.StatusServiceUnavailable: true, http.StatusBadGateway: true,
	http.StatusGatewayTimeout: true, http.StatusTooManyRequests: true}

// doKey sends a request with an Idempotency-Key when key is not empty, and
// again while the answer is one of retryStatuses and the request is safe
// to repeat (a GET or PATCH, a key, or repeat set), within the retry
// budget.
func (c *Client) doKey(ctx context.Context, method, path, key string, in, out any) error {
	return c.send(ctx, method, path, key, method == "GET" || method == "PATCH" || key != "", in, out)
}

func (c *Client) send(ctx context.Context, method, path, key string, repeat bool, in, out any) error {
	var raw []byte
	if in != nil {
		var err error
		if raw, err = json.Marshal(in); err != nil {
			return fmt.Errorf("client: encoding the request: %w", err)
		}
	}
	waited := time.Duration(0)
	for attempt := 0; ; attempt++ {
		err := c.once(ctx, method, path, key, raw, out)
		var e *retryable
		if !errors.As(err, &e) {
			return err
		}
		wait := e.after
		if wait < 0 { // no Retry-After: exponential backoff, 250 ms doubling to 8 s
			wait = min(250*time.Millisecond<<min(attempt, 5), 8*time.Second)
		}
		if !repeat || waited+wait > c.budget {
			return e.err
		}
		if err := c.sleep(ctx, wait); err != nil {
			return e.err
		}
		waited += wait
	}
}

// retryable is an answer of retryStatuses: err, and the wait its
// Retry-After asks for (negative: none).
type retryable struct {
	err   error
	after time.Duration
}

func (r *retryable) Error() string { return r.err.Error() }

// retryAfter reads a Retry-After header: seconds or an HTTP date
// (RFC 9110 §10.2.3); negative when absent or unreadable.
func retryAfter(h string) time.Duration {
	if h == "" {
		return -1
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return -1
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// once sends one request; an answer of retryStatuses is a *retryable.
func (c *Client) once(ctx context.Context, method, path, key string, raw []byte, out any) error {
	var body io.Reader
	if raw != nil {
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", `"`+key+`"`)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("client: %s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		var e api.Error
		if json.Unmarshal(raw, &e) != nil || e.Err.Status == 0 {
			e.Err = api.ErrorBody{Status: resp.StatusCode, Code: "http", Message: strings.TrimSpace(string(raw))}
		}
		if retryStatuses[resp.StatusCode] {
			return &retryable{err: &e, after: retryAfter(resp.Header.Get("Retry-After"))}
		}
		return &e
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	if rb, ok := out.(*rawBody); ok {
		*rb = raw
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("client: %s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}

func studyPath(id string, rest string) string { return "/studies/" + url.PathEscape(id) + rest }

// Health checks that the server is up and its store answers (an error
// with status 503 when it does not); it is not retried.
func (c *Client) Health(ctx context.Context) (api.Health, error) {
	var h api.Health
	err := c.send(ctx, "GET", "/healthz", "", false, nil, &h)
	return h, err
}

// CreateStudy creates a study; the answer holds the stored definition with
// every default filled in.
func (c *Client) CreateStudy(ctx context.Context, spec api.StudySpec) (api.Study, error) {
	var st api.Study
	err := c.do(ctx, "POST", "/studies", spec, &st)
	return st, err
}

// LoadOrCreateStudy creates a study, or resumes the study of that name when
// it exists with the same definition (POST /studies?load_if_exists=true,
// Optuna's create_study(load_if_exists=True)): a program run again finds
// its study and its decisions. A study of that name with another
// definition is an *api.Error with status 409, code "definition_differs",
// naming the first differing field and both values.
func (c *Client) LoadOrCreateStudy(ctx context.Context, spec api.StudySpec) (api.Study, error) {
	var st api.Study
	err := c.do(ctx, "POST", "/studies?load_if_exists=true", spec, &st)
	return st, err
}

// Study returns a study.
func (c *Client) Study(ctx context.Context, id string) (api.Study, error) {
	var st api.Study
	err := c.do(ctx, "GET", studyPath(id, ""), nil, &st)
	return st, err
}

// Studies lists every study, following the pages of GET /studies.
func (c *Client) Studies(ctx context.Context) ([]api.Study, error) {
	var out []api.Study
	after := ""
	for {
		l, err := c.StudyPage(ctx, after, 0)
		if err != nil {
			return out, err
		}
		out = append(out, l.Studies...)
		if l.Next == "" {
			return out, nil
		}
		after = l.Next
	}
}

// StudyPage returns one page of studies (GET /studies?after=&limit=):
// after is the Next of the previous page ("" for the first), limit 0 the
// server's default page size.
func (c *Client) StudyPage(ctx context.Context, after string, limit int) (api.StudyList, error) {
	q := url.Values{}
	if after != "" {
		q.Set("after", after)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	path := "/studies"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var l api.StudyList
	err := c.do(ctx, "GET", path, nil, &l)
	return l, err
}

// StudyByName finds a study by its name (GET /studies?name=); the error is
// an *api.Error with status 404 and field "name" when there is none.
func (c *Client) StudyByName(ctx context.Context, name string) (api.Study, error) {
	var l api.StudyList
	if err := c.do(ctx, "GET", "/studies?name="+url.QueryEscape(name), nil, &l); err != nil {
		return api.Study{}, err
	}
	if len(l.Studies) == 0 {
		return api.Study{}, &api.Error{Err: api.ErrorBody{Status: http.StatusNotFound, Code: "not_found", Field: "name",
			Message: fmt.Sprintf("no study named %q", name)}}
	}
	return l.Studies[0], nil
}

// DecisionsCSV returns every decision of a study as CSV (GET
// /studies/{id}/decisions.csv): a header and one row per decision.
func (c *Client) DecisionsCSV(ctx context.Context, id string) ([]byte, error) {
	var raw rawBody
	err := c.do(ctx, "GET", studyPath(id, "/decisions.csv"), nil, &raw)
	return raw, err
}

// rawBody receives an answer that is not JSON.
type rawBody []byte

// DeleteStudy deletes a study and its log.
func (c *Client) DeleteStudy(ctx context.Context, id string) error {
	return c.do(ctx, "DELETE", studyPath(id, ""), nil, nil)
}

// Suggest asks for the next count decisions (at least 1: a count below 1
// is an error, as the service refuses it, never an ask for one). It sends
// an Idempotency-Key of its own, so that its retries make the decisions
// once.
func (c *Client) Suggest(ctx context.Context, id string, count int) ([]api.Suggestion, error) {
	if err := checkCount(count); err != nil {
		return nil, err
	}
	var r api.SuggestResponse
	err := c.doKey(ctx, "POST", studyPath(id, "/suggestions"), newKey(), api.SuggestRequest{Count: count}, &r)
	return r.Suggestions, err
}

// newKey is a fresh Idempotency-Key: an ask retried after a 503 is then
// answered once.
func newKey() string {
	var b [16]byte
	rand.Read(b[:])
	return "go-ask-" + hex.EncodeToString(b[:])
}

// SuggestOnce is Suggest with an Idempotency-Key: retrying it with the same
// key (after a timeout, say) returns the same decisions instead of new ones.
func (c *Client) SuggestOnce(ctx context.Context, id string, count int, key string) ([]api.Suggestion, error) {
	if err := checkCount(count); err != nil {
		return nil, err
	}
	var r api.SuggestResponse
	err := c.doKey(ctx, "POST", studyPath(id, "/suggestions"), key, api.SuggestRequest{Count: count}, &r)
	return r.Suggestions, err
}

// checkCount refuses an ask for fewer than one decision before it is sent:
// 0 would be left out of the body and read by the service as 1.
func checkCount(count int) error {
	if count < 1 {
		return fmt.Errorf("client: count = %d: an ask is for at least 1 decision", count)
	}
	return nil
}

// ObserveOnce is Observe with an Idempotency-Key: a retry returns the
// answer of the first request.
func (c *Client) ObserveOnce(ctx context.Context, id string, o api.Observation, key string) (api.ObserveResponse, error) {
	var r api.ObserveResponse
	err := c.doKey(ctx, "POST", studyPath(id, "/observations"), key, o, &r)
	return r, err
}

// Abandon abandons a pending decision: it takes no observation afterwards.
func (c *Client) Abandon(ctx context.Context, id string, decision int64) error {
	return c.do(ctx, "DELETE", studyPath(id, "/decisions/"+strconv.FormatInt(decision, 10)), nil, nil)
}

// RaiseHorizon raises the horizon of a study that has one.
func (c *Client) RaiseHorizon(ctx context.Context, id string, horizon int) (api.Study, error) {
	var st api.Study
	err := c.do(ctx, "PATCH", studyPath(id, ""), api.StudyPatch{Horizon: horizon}, &st)
	return st, err
}

// Observe tells the reward and/or costs of a decision. Re-sending the same
// observation is a no-op, so it is safe to retry.
func (c *Client) Observe(ctx context.Context, id string, o api.Observation) (api.ObserveResponse, error) {
	var r api.ObserveResponse
	err := c.send(ctx, "POST", studyPath(id, "/observations"), "", true, o, &r)
	return r, err
}

// Decisions returns up to limit decisions with ID > after (limit ≤ 0: the
// server's default page).
func (c *Client) Decisions(ctx context.Context, id string, after int64, limit int) (api.DecisionList, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	p := studyPath(id, "/decisions")
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var l api.DecisionList
	err := c.do(ctx, "GET", p, nil, &l)
	return l, err
}

// AllDecisions pages through every decision of a study.
func (c *Client) AllDecisions(ctx context.Context, id string) ([]api.DecisionRecord, error) {
	var all []api.DecisionRecord
	after := int64(0)
	for {
		l, err := c.Decisions(ctx, id, after, 1000)
		if err != nil {
			return all, err
		}
		all = append(all, l.Decisions...)
		if l.Next == 0 {
			return all, nil
		}
		after = l.Next
	}
}

// Summary returns the study's summary: Best, the best feasible observation, and
// Recommendation, what the model recommends deploying (nil while it names none).
func (c *Client) Summary(ctx context.Context, id string) (api.Summary, error) {
	var s api.Summary
	err := c.do(ctx, "GET", studyPath(id, "/summary"), nil, &s)
	return s, err
}

// Float returns a pointer to v (for Observation.Reward).
func Float(v float64) *float64 { return &v }
