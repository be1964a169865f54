package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cbandit/cbandit/service/api"
)

// apiError is an error answered to the client with its status, a code and
// the offending field.
type apiError struct {
	status int
	code   string
	field  string
	msg    string
}

func (e *apiError) Error() string {
	if e.field != "" {
		return e.field + ": " + e.msg
	}
	return e.msg
}

func (e *apiError) body() api.Error {
	return api.Error{Err: api.ErrorBody{Status: e.status, Code: e.code, Field: e.field, Message: e.msg}}
}

// invalid is a 400 naming a field.
func invalid(field, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, code: "invalid_argument", field: field, msg: fmt.Sprintf(format, args...)}
}

func notFound(field, format string, args ...any) *apiError {
	return &apiError{status: http.StatusNotFound, code: "not_found", field: field, msg: fmt.Sprintf(format, args...)}
}

func conflict(code, field, format string, args ...any) *apiError {
	return &apiError{status: http.StatusConflict, code: code, field: field, msg: fmt.Sprintf(format, args...)}
}

func internal(err error) *apiError {
	return &apiError{status: http.StatusInternalServerError, code: "internal", msg: err.Error()}
}

// readBody reads a request body within the server's limit. An empty body is
// nil.
func readBody(r *http.Request) ([]byte, *apiError) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &apiError{status: http.StatusRequestEntityTooLarge, code: "too_large", field: "body",
				msg: fmt.Sprintf("request body exceeds the limit of %d bytes", mbe.Limit)}
		}
		return nil, invalid("body", "reading the body: %v", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	return b, nil
}

// decodeJSON decodes exactly one JSON value into dst, refusing unknown
// fields; the error names the field.
func decodeJSON(b []byte, dst any) *apiError {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(b, reflect.TypeOf(dst), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid("body", "unexpected data after the JSON value")
	}
	// encoding/json matches keys to fields without regard to case; the API's
	// keys are case-sensitive, so "Reward" is an unknown field, not reward.
	return checkKeys(b, reflect.TypeOf(dst))
}

// checkKeys walks the JSON value b beside the Go type t it was decoded into
// and refuses a key that matches no field exactly (encoding/json accepted it
// for a field whose name differs only in case), or a key repeated in one
// object (encoding/json keeps the last). Maps and untyped values (any) take
// any key.
func checkKeys(b []byte, t reflect.Type) *apiError {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return walkKeys(dec, t, "")
}

func walkKeys(dec *json.Decoder, t reflect.Type, path string) *apiError {
	tok, err := dec.Token()
	if err != nil {
		return invalid("body", "invalid JSON: %v", err)
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(jsonUnmarshaler)) {
		t = nil // decoded by its own rules
	}
	switch tok {
	case json.Delim('{'):
		var fields map[string]reflect.Type
		if t != nil && t.Kind() == reflect.Struct {
			fields = jsonFields(t)
		}
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return invalid("body", "invalid JSON: %v", err)
			}
			key, _ := kt.(string)
			sub := key
			if path != "" {
				sub = path + "." + key
			}
			var ft reflect.Type
			switch {
			case fields != nil:
				f, ok := fields[key]
				if !ok {
					hint := ""
					for name := range fields {
						if strings.EqualFold(name, key) {
							hint = fmt.Sprintf(" (keys are case-sensitive: did you mean %q?)", name)
						}
					}
					return invalid(clip(sub, 200), "unknown field %q%s", clip(key, 100), hint)
				}
				if seen[key] {
					return invalid(clip(sub, 200), "is given twice in one object")
				}
				seen[key] = true
				ft = f
			case t != nil && t.Kind() == reflect.Map:
				ft = t.Elem()
			}
			if e := walkKeys(dec, ft, sub); e != nil {
				return e
			}
		}
		if _, err := dec.Token(); err != nil {
			return invalid("body", "invalid JSON: %v", err)
		}
	case json.Delim('['):
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if e := walkKeys(dec, et, fmt.Sprintf("%s[%d]", path, i)); e != nil {
				return e
			}
		}
		if _, err := dec.Token(); err != nil {
			return invalid("body", "invalid JSON: %v", err)
		}
	}
	return nil
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// fieldsCache holds jsonFields by type.
var fieldsCache sync.Map // reflect.Type → map[string]reflect.Type

// jsonFields maps the JSON keys of struct type t (its exported fields by
// their json tag or name, embedded structs' fields promoted) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldsCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, ok := m[k]; !ok {
						m[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	fieldsCache.Store(t, m)
	return m
}

// jsonError names the field of a decoding error of body b, decoded into a
// value of type t: the JSON path of a value of the wrong type
// ("constraints[1].threshold"), of an unknown key ("space.tpye"), or the
// body for malformed JSON.
func jsonError(b []byte, t reflect.Type, err error) *apiError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return invalid("body", "invalid JSON at byte %d: %v%s", se.Offset, se, nonFiniteHint(b, se.Offset))
	case errors.As(err, &te):
		field := valuePath(b, te.Offset)
		if field == "" {
			field = te.Field
		}
		if field == "" {
			field = "body"
		}
		return invalid(clip(field, 200), "cannot use JSON %s as %s", te.Value, te.Type)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("body", "truncated JSON")
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		// checkKeys finds the key with its path (an empty key at the top
		// has none: the body is named).
		if e := checkKeys(b, t); e != nil && e.field != "" {
			return e
		}
		name := strings.Trim(rest, `"`)
		if name == "" {
			return invalid("body", "unknown field %s", rest)
		}
		return invalid(name, "unknown field %s", rest)
	}
	return invalid("body", "%s", strings.TrimPrefix(msg, "json: "))
}

// nonFiniteHint explains a syntax error at a NaN or an infinity, which JSON
// cannot hold: an evaluation that produced no number is reported as a
// failure. off is the offset encoding/json gives (just past the bad byte).
func nonFiniteHint(b []byte, off int64) string {
	start := max(off-2, 0) // a leading '-' or the bad byte itself
	if start > int64(len(b)) {
		return ""
	}
	rest := bytes.ToLower(b[start:])
	for len(rest) > 0 && (rest[0] == '-' || rest[0] == '+' || rest[0] == ':' || rest[0] == ' ') {
		rest = rest[1:]
	}
	if !bytes.HasPrefix(rest, []byte("nan")) && !bytes.HasPrefix(rest, []byte("inf")) {
		return ""
	}
	return `: JSON has no NaN or Infinity; to report an evaluation that produced no value, ` +
		`POST /studies/{id}/observations with {"decision_id": N, "failed": true, "reason": "..."}`
}

// valuePath is the JSON path ("space.lo[1]") of the value of b whose first
// token ends at byte off — where encoding/json reports a value of the wrong
// type: after a number, string or literal, after the '{' or '[' of an
// object or array — or "" when none does.
func valuePath(b []byte, off int64) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	path, _ := walkTo(dec, off, "")
	return path
}

// walkTo reads one value at path; found says that the value ending at off
// was found (its path is path) or that the walk cannot go on.
func walkTo(dec *json.Decoder, off int64, path string) (string, bool) {
	tok, err := dec.Token()
	if err != nil {
		return "", true
	}
	if dec.InputOffset() == off {
		return path, true
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return "", true
			}
			key, _ := kt.(string)
			sub := key
			if path != "" {
				sub = path + "." + key
			}
			if p, found := walkTo(dec, off, sub); found {
				return p, true
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if p, found := walkTo(dec, off, fmt.Sprintf("%s[%d]", path, i)); found {
				return p, true
			}
		}
	default:
		return "", false
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return "", true
	}
	return "", false
}

// clip shortens what a client sent before it is echoed in an answer or a
// log line: at most n bytes (cut at a rune boundary), "…" marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// algorithmFailed is the answer when the study's algorithm refuses its own
// data: a fault of the study, not of the server.
func algorithmFailed(id string, err error) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, code: "algorithm_failed", field: "algorithm",
		msg: fmt.Sprintf("study %s: %v", id, err)}
}
