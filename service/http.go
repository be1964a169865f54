// HTTP plumbing: the middleware (status, limits, auth) and writing JSON answers and errors.

package service

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cbandit/cbandit/service/ui"
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
		defer func() {
			p := recover()
			if p == http.ErrAbortHandler { // an answer cut short on purpose
				s.metrics.request(route, r.Method, w.code, time.Since(start).Seconds())
				panic(p)
			}
			if p != nil {
				s.log.Error("panic in handler", "route", route, "panic", p)
				if w.code == 0 {
					writeError(w, internal(fmt.Errorf("internal error")))
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
			default:
				ae = internal(err)
			}
			if ae.status >= 500 {
				s.log.Error("request failed", "route", route, "err", err)
			}
			writeError(w, ae)
		}
	})
}

// public reports whether a path is served without a token: /healthz, the
// dashboard's assets and the redirects to them.
func public(path string) bool {
	return path == "/healthz" || path == "/" || path == "/ui" || strings.HasPrefix(path, ui.Prefix)
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
