// HTTP plumbing: the middleware (status, limits, auth) and writing JSON answers and errors.

package service

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/cbandit/cbandit/service/ui"
	"github.com/cbandit/cbandit/store"
)

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// wrap adds authentication, the body limit, error answers, panic recovery
// and metrics to a handler.
func (s *Server) wrap(h func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w := &statusWriter{ResponseWriter: rw}
		route := r.Pattern
		if route == "/" || route == "" {
			route = "other"
		}
		rid := requestID(r)
		w.Header().Set("X-Request-Id", rid)
		defer func() {
			p := recover()
			if p == http.ErrAbortHandler { // an answer cut short on purpose
				s.metrics.request(route, r.Method, w.code, time.Since(start).Seconds())
				panic(p)
			}
			if p != nil {
				s.log.Error("panic in handler", "route", route, "request_id", rid, "panic", p)
				if w.code == 0 {
					writeError(w, scrubbed(internal(fmt.Errorf("internal error")), rid))
				}
			}
			code := w.code
			if code == 0 {
				code = http.StatusOK
			}
			s.metrics.request(route, r.Method, code, time.Since(start).Seconds())
		}()
		if s.cors(w, r) {
			return // a preflight from an allowed origin
		}
		if s.opt.Token == "" {
			if e := s.guard(r); e != nil {
				s.metrics.refused(e.code)
				writeError(w, e)
				return
			}
		}
		if s.opt.Token != "" && !public(r.URL.Path) && !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cbandit"`)
			writeError(w, &apiError{status: http.StatusUnauthorized, code: "unauthenticated", field: "Authorization",
				msg: "missing or wrong bearer token"})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes)
		if err := h(w, r); err != nil {
			if answerBegun(s, w, route, err) {
				return
			}
			var ae *apiError
			switch {
			case errors.As(err, &ae):
			case r.Context().Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
				// The client went away while the store worked for it.
				ae = &apiError{status: 499, code: "client_gone", field: "body", msg: "the client closed the request"}
			case errors.Is(err, store.ErrUnavailable):
				ae = unavailableErr()
			default:
				ae = internal(err)
			}
			if ae.status >= 500 {
				// The log has the cause (a driver's text may name the
				// database's user, host and port); the answer does not.
				level := slog.LevelError
				if ae.status == http.StatusServiceUnavailable {
					level = slog.LevelWarn // an outage of the store, not a defect
				}
				s.log.Log(r.Context(), level, "request failed", "route", route, "request_id", rid, "status", ae.status, "err", err)
				ae = scrubbed(ae, rid)
			}
			if ae.status == http.StatusServiceUnavailable {
				s.metrics.unavailableAnswers.Add(1)
				w.Header().Set("Retry-After", retryAfter)
			}
			writeError(w, ae)
		}
	})
}

// retryAfter is the Retry-After of a 503 (seconds): a restarting database
// is typically back within seconds, and the clients back off from it.
const retryAfter = "1"

// unavailableErr is the answer while the store cannot take requests.
func unavailableErr() *apiError {
	return &apiError{status: http.StatusServiceUnavailable, code: "unavailable",
		msg: "the study store is unavailable (restarting, unreachable, or out of space): retry later; a request retried with its Idempotency-Key is applied at most once"}
}

// scrubbed is a 5xx answer with a message of the server's own, naming the
// request's id for the server's log: no cause's text reaches the client.
func scrubbed(ae *apiError, rid string) *apiError {
	out := *ae
	if out.status != http.StatusServiceUnavailable {
		out.msg = "internal error"
	}
	out.msg += " (request id " + rid + "; the server's log has the details)"
	return &out
}

// requestID is the request's X-Request-Id when a proxy set a plausible one
// (1–64 letters, digits, '-', '_', '.'), else a new random one.
func requestID(r *http.Request) string {
	if v := r.Header.Get("X-Request-Id"); v != "" && len(v) <= 64 && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == "" {
		return v
	}
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// public reports whether a path is served without a token: /healthz,
// /livez, the dashboard's assets and the redirects to them.
func public(path string) bool {
	return path == "/healthz" || path == "/livez" || path == "/" || path == "/ui" || strings.HasPrefix(path, ui.Prefix)
}

// authorized checks the bearer token. The scheme is matched without regard
// to case and may be followed by several spaces (RFC 7235 §2.1, RFC 6750
// §2.1); the token itself is compared in constant time.
func (s *Server) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	tok = strings.TrimLeft(tok, " ")
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.opt.Token)) == 1
}

// writeJSON encodes v before it writes the status, so that a value that
// cannot be encoded is an error answer, never a 2xx with a broken body.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding the answer: %w", err)
	}
	jsonHeaders(w.Header())
	w.WriteHeader(status)
	_, err = w.Write(append(b, '\n'))
	return err
}

// jsonHeaders marks an answer as JSON that no browser may sniff as
// something else and no cache may keep (OWASP REST Security Cheat Sheet,
// "Security headers": the API answers carry data, which may be private).
func jsonHeaders(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}

func writeError(w http.ResponseWriter, e *apiError) {
	jsonHeaders(w.Header())
	w.WriteHeader(e.status)
	json.NewEncoder(w).Encode(e.body())
}
