package service

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Browser guards. A server without a token trusts whoever can reach its
// port — by default only this machine — but a web page the user visits can
// also send requests to a loopback port: a cross-site POST (an HTML form or
// fetch in "no-cors" mode, which may carry a text/plain body without a
// preflight), or, after DNS rebinding, any request under a name of the
// attacker's that resolves to 127.0.0.1. So, with no token, as Jupyter
// Server, the Vite and webpack dev servers and Go's
// http.CrossOriginProtection do:
//
//   - the Host must be a loopback name (localhost, 127.0.0.0/8, [::1], any
//     port) or one of Options.AllowedHosts: a rebound name is refused;
//   - an Origin, when the request has one, must be the request's own
//     (same host and port) or one of Options.AllowedOrigins; a write with
//     Sec-Fetch-Site cross-site or same-site (and no allowed Origin) is
//     refused;
//   - a write (POST, PUT, PATCH, DELETE) with a body must say Content-Type
//     application/json (or another +json type): none of these is a type a
//     page can send without a CORS preflight, which this server never
//     grants to other origins.
//
// /healthz is exempt (probes reach it by the pod's address). With a token
// these checks are off: a page cannot send the bearer header without the
// token and a preflight.

// hostPolicy is the parsed Options.AllowedHosts.
type hostPolicy struct {
	any      bool
	exact    map[string]bool
	suffixes []string // ".example.com": example.com and its subdomains
}

func newHostPolicy(hosts []string) hostPolicy {
	p := hostPolicy{exact: map[string]bool{}}
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case h == "":
		case h == "*":
			p.any = true
		case strings.HasPrefix(h, "."):
			p.suffixes = append(p.suffixes, h)
		default:
			p.exact[hostOnly(h)] = true
		}
	}
	return p
}

// hostOnly is the host of a Host header value without its port and
// brackets, lower case, without a trailing dot.
func hostOnly(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// loopbackHost reports whether h (without port) names this machine's
// loopback: localhost or a loopback IP literal.
func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (p hostPolicy) allows(hostport string) bool {
	h := hostOnly(hostport)
	if h == "" {
		return false
	}
	if p.any || loopbackHost(h) || p.exact[h] {
		return true
	}
	for _, s := range p.suffixes {
		if h == s[1:] || strings.HasSuffix(h, s) {
			return true
		}
	}
	return false
}

// originPolicy is the parsed Options.AllowedOrigins.
type originPolicy struct {
	any   bool
	exact map[string]bool
}

func newOriginPolicy(origins []string) originPolicy {
	p := originPolicy{exact: map[string]bool{}}
	for _, o := range origins {
		o = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
		switch o {
		case "":
		case "*":
			p.any = true
		default:
			p.exact[o] = true
		}
	}
	return p
}

// listed reports whether the operator allowed origin o.
func (p originPolicy) listed(o string) bool {
	return p.any || p.exact[strings.TrimSuffix(strings.ToLower(o), "/")]
}

// sameOrigin reports whether origin o is the request's own: an http(s)
// origin whose host and port are the request's Host.
func sameOrigin(o string, r *http.Request) bool {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// unsafeMethod reports whether a request may change state.
func unsafeMethod(m string) bool {
	return m != http.MethodGet && m != http.MethodHead && m != http.MethodOptions
}

// guard applies the browser guards to a request of a server without a
// token; the error names the header.
func (s *Server) guard(r *http.Request) *apiError {
	if r.URL.Path == "/healthz" {
		return nil
	}
	if !s.hosts.allows(r.Host) {
		return &apiError{status: http.StatusForbidden, code: "forbidden_host", field: "Host",
			msg: "= " + quoteClip(r.Host, 100) + ": without a token this server answers only requests to a loopback name (localhost, 127.0.0.1, [::1]) or to a host of --allowed-hosts (a defence against DNS rebinding)"}
	}
	origin, hasOrigin := r.Header["Origin"]
	if hasOrigin {
		o := ""
		if len(origin) > 0 {
			o = origin[0]
		}
		if len(origin) != 1 || !(s.origins.listed(o) || sameOrigin(o, r)) {
			return &apiError{status: http.StatusForbidden, code: "forbidden_origin", field: "Origin",
				msg: "= " + quoteClip(o, 100) + ": without a token this server answers only its own pages (Origin http://" + clip(r.Host, 100) + ") or an origin of --allowed-origins (a defence against cross-site requests)"}
		}
	}
	if !unsafeMethod(r.Method) {
		return nil
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" &&
		!(hasOrigin && s.origins.listed(r.Header.Get("Origin"))) {
		return &apiError{status: http.StatusForbidden, code: "forbidden_origin", field: "Sec-Fetch-Site",
			msg: "= " + quoteClip(site, 40) + ": without a token this server takes writes only from its own pages or an origin of --allowed-origins"}
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" && (r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody) {
		return nil // no body: nothing to type
	}
	if mt, _, err := mime.ParseMediaType(ct); err != nil || !jsonMediaType(mt) {
		got := "is missing"
		if ct != "" {
			got = "= " + quoteClip(ct, 100) + ":"
		}
		return &apiError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type", field: "Content-Type",
			msg: got + " a request body must be sent as application/json (without a token, writes of other types are refused: a web page can send those across sites)"}
	}
	return nil
}

// jsonMediaType accepts application/json and the structured syntax suffix
// +json (RFC 6839), e.g. application/merge-patch+json.
func jsonMediaType(mt string) bool {
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// cors answers a CORS preflight from an origin of Options.AllowedOrigins,
// and marks the answers to such an origin as readable by it (Fetch
// standard, "CORS protocol"). It reports whether the request was a
// preflight it answered. Other origins get no CORS header: a browser keeps
// the answer from them.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || !s.origins.listed(o) {
		return false
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Origin", o)
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	h.Set("Access-Control-Expose-Headers", "Location, Link, Idempotent-Replayed")
	return false
}

// quoteClip quotes what a client sent, shortened.
func quoteClip(s string, n int) string { return strconv.Quote(clip(s, n)) }

// CheckOrigin checks an entry of Options.AllowedOrigins: "*", or an origin
// scheme://host[:port] with scheme http or https and nothing after it.
func CheckOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%q is not an origin: want scheme://host[:port], e.g. https://app.example.com, or *", o)
	}
	return nil
}
