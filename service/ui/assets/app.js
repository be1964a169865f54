// cbandit dashboard: a list of studies and a study page with charts drawn
// as SVG. No library, no network beyond this server. Data comes from the
// API with the token kept in sessionStorage (see package ui's doc.go).
"use strict";

const TOKEN_KEY = "cbandit.token";
const REFRESH_MS = 3000;
const PAGE = 1000; // the API's largest page (MaxPageSize)
const MAX_DECISIONS = 100000; // the page reads at most this many decisions
const TABLE_ROWS = 200;
const COLORS = ["#2563eb", "#d97706", "#059669", "#7c3aed", "#db2777", "#0891b2", "#65a30d", "#dc2626"];
const SVGNS = "http://www.w3.org/2000/svg";

let timer = null;
let generation = 0; // bumps on navigation: late answers of an old page are dropped

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text != null) e.textContent = text;
  return e;
}

class AuthError extends Error {}

async function api(path) {
  const headers = { Accept: "application/json" };
  const tok = sessionStorage.getItem(TOKEN_KEY);
  if (tok) headers.Authorization = "Bearer " + tok;
  const resp = await fetch(path, { headers, cache: "no-store" });
  if (resp.status === 401) throw new AuthError("the server wants a token");
  const body = await resp.json().catch(() => null);
  if (!resp.ok) {
    const e = body && body.error;
    throw new Error(e ? `${e.status} ${e.code}${e.field ? " (" + e.field + ")" : ""}: ${e.message}` : `HTTP ${resp.status}`);
  }
  return body;
}

function fmt(v) {
  if (v == null || v === "") return "";
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(3) : v.toPrecision(4).replace(/\.?0+$/, "");
}

function setStatus(text) { document.getElementById("status").textContent = text; }

function showLogin(message) {
  stop();
  document.getElementById("main").replaceChildren();
  const form = document.getElementById("login");
  form.hidden = false;
  document.getElementById("login-error").textContent = message || "";
  document.getElementById("token").focus();
}

function stop() {
  if (timer) clearTimeout(timer);
  timer = null;
}

async function route() {
  stop();
  generation++;
  document.getElementById("login").hidden = true;
  document.getElementById("logout").hidden = !sessionStorage.getItem(TOKEN_KEY);
  const m = location.hash.match(/^#\/study\/([^/]+)$/);
  try {
    if (m) await studyPage(decodeURIComponent(m[1]), generation);
    else await listPage(generation);
  } catch (err) {
    if (err instanceof AuthError) showLogin(sessionStorage.getItem(TOKEN_KEY) ? "That token was refused." : "");
    else document.getElementById("main").replaceChildren(el("p", { class: "error", text: String(err.message || err) }));
  }
}

let listAfter = ""; // the page of the study list shown: GET /studies pages ("": the first)

async function listPage(gen) {
  const data = await api("/studies?limit=50" + (listAfter ? "&after=" + encodeURIComponent(listAfter) : ""));
  if (gen !== generation) return;
  const main = document.getElementById("main");
  const studies = data.studies || [];
  setStatus(`${studies.length} ${studies.length === 1 ? "study" : "studies"}${data.next || listAfter ? " on this page" : ""}`);
  const pager = data.next || listAfter ? [el("p", {},
    listAfter ? el("button", { onclick: () => { listAfter = ""; route(); }, text: "first page" }) : null, " ",
    data.next ? el("button", { id: "next-page", onclick: () => { listAfter = data.next; route(); }, text: "next page" }) : null)] : [];
  const rows = studies.map((s) =>
    el("tr", {},
      el("td", {}, el("a", { href: "#/study/" + encodeURIComponent(s.id), text: s.spec.name })),
      el("td", { text: s.spec.algorithm }),
      el("td", { class: "num", text: String(s.rounds) }),
      el("td", { text: s.spec.horizon ? String(s.spec.horizon) : "open-ended" }),
      el("td", { text: s.spec.objective.name + " (" + (s.spec.objective.goal || "maximize") + ")" }),
      el("td", { text: (s.spec.constraints || []).map((c) => `${c.name} ≤ ${fmt(c.threshold)}`).join(", ") }),
      el("td", { text: new Date(s.created).toLocaleString() }),
      el("td", { class: "muted", text: s.id })));
  main.replaceChildren(
    el("h1", { text: "Studies" }),
    studies.length === 0 ? el("p", { class: "muted", text: "No study yet: create one with POST /studies (see /openapi.json)." }) :
      el("table", { id: "studies" },
        el("thead", {}, el("tr", {}, ...["name", "algorithm", "rounds", "horizon", "objective", "constraints", "created", "id"].map((h) => el("th", { text: h })))),
        el("tbody", {}, ...rows)),
    ...pager);
  timer = setTimeout(() => { if (gen === generation) listPage(gen).catch(() => {}); }, REFRESH_MS * 2);
}

async function allDecisions(id) {
  let out = [], after = 0;
  for (;;) {
    const page = await api(`/studies/${encodeURIComponent(id)}/decisions?limit=${PAGE}&after=${after}`);
    out = out.concat(page.decisions || []);
    if (!page.next || out.length >= MAX_DECISIONS) return out;
    after = page.next;
  }
}

// series computes what the charts show from the decisions.
function series(study, decs) {
  const spec = study.spec;
  const cons = spec.constraints || [];
  const sign = spec.objective.goal === "minimize" ? -1 : 1;
  const reward = [], best = [], costs = cons.map(() => []), cum = cons.map(() => []);
  const viol = cons.map(() => 0);
  let bestV = null;
  for (const d of decs) {
    if (d.costs) {
      d.costs.forEach((c, j) => {
        costs[j].push([d.round, c]);
        viol[j] += Math.max(0, c - cons[j].threshold);
        cum[j].push([d.round, viol[j]]);
      });
    }
    if (d.reward != null) {
      reward.push([d.round, d.reward]);
      const feasible = cons.length === 0 || (d.costs && d.costs.every((c, j) => c <= cons[j].threshold));
      if (feasible && (bestV === null || sign * d.reward > sign * bestV)) bestV = d.reward;
    }
    if (bestV !== null) best.push([d.round, bestV]);
  }
  return { reward, best, costs, cum };
}

// chart draws an SVG chart of series [{name, points: [[x, y]], kind: "dots"|"line"|"hline", color, dash}].
function chart(id, title, list, opts) {
  const W = 560, H = 260, L = 58, R = 14, T = 26, B = 34;
  const all = list.flatMap((s) => s.points);
  const root = svg("svg", { id, class: "chart", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title });
  root.append(svg("text", { x: L, y: 17, class: "title" }, title));
  const npts = list.filter((s) => s.kind !== "hline").reduce((n, s) => n + s.points.length, 0);
  root.setAttribute("data-points", String(npts));
  if (npts === 0) {
    root.append(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "muted" }, "no observation yet"));
    return root;
  }
  let x0 = Math.min(...all.map((p) => p[0])), x1 = Math.max(...all.map((p) => p[0]));
  let y0 = Math.min(...all.map((p) => p[1])), y1 = Math.max(...all.map((p) => p[1]));
  if (x1 === x0) { x0 -= 1; x1 += 1; }
  if (y1 === y0) { y0 -= 1; y1 += 1; }
  const pad = (y1 - y0) * 0.06; y0 -= pad; y1 += pad;
  const sx = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
  const sy = (y) => H - B - (y - y0) / (y1 - y0) * (H - T - B);
  let lastX = null;
  for (let i = 0; i <= 4; i++) {
    const y = y0 + (y1 - y0) * i / 4, x = Math.round(x0 + (x1 - x0) * i / 4);
    root.append(svg("line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), class: "grid" }));
    root.append(svg("text", { x: L - 6, y: sy(y) + 4, "text-anchor": "end" }, fmt(y)));
    if (x !== lastX) root.append(svg("text", { x: sx(x), y: H - B + 15, "text-anchor": "middle" }, String(x))); // rounds: integers, once each
    lastX = x;
  }
  root.append(svg("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }));
  root.append(svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }));
  root.append(svg("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, opts.xlabel || "round"));
  let lx = W - R;
  for (const s of list.slice().reverse()) { // legend, right-aligned
    const t = svg("text", { x: lx, y: 17, "text-anchor": "end", fill: s.color }, "■ " + s.name);
    root.append(t);
    lx -= 12 + 7 * (s.name.length + 2);
  }
  for (const s of list) {
    if (s.kind === "dots") {
      const g = svg("g", { class: "dots", fill: s.color, "fill-opacity": 0.75 });
      for (const [x, y] of s.points) g.append(svg("circle", { cx: sx(x).toFixed(1), cy: sy(y).toFixed(1), r: 2.6 }));
      root.append(g);
    } else if (s.kind === "hline") {
      const y = sy(s.points[0][1]);
      root.append(svg("line", { x1: L, x2: W - R, y1: y, y2: y, stroke: s.color, "stroke-width": 1.5, "stroke-dasharray": "6 4", class: "threshold" }));
    } else {
      const d = s.points.map(([x, y], i) => (i ? "L" : "M") + sx(x).toFixed(1) + "," + sy(y).toFixed(1)).join("");
      root.append(svg("path", { d, fill: "none", stroke: s.color, "stroke-width": 2, class: "line" }));
    }
  }
  return root;
}

function facts(study, sum) {
  const f = (label, value) => el("div", { class: "fact" }, el("b", { text: value }), el("span", { class: "muted", text: label }));
  const out = [
    f("rounds", String(sum.rounds) + (sum.horizon ? " / " + sum.horizon : "")),
    f("observed", String(sum.reward_observed)),
    f("pending", String(sum.pending)),
  ];
  if (sum.abandoned) out.push(f("abandoned", String(sum.abandoned)));
  if (sum.best) {
    const where = sum.best.params ? Object.entries(sum.best.params).map(([k, v]) => `${k}=${fmt(v)}`).join(", ") : "x = [" + sum.best.x.map(fmt).join(", ") + "]";
    out.push(f(`best feasible ${study.spec.objective.name} (decision ${sum.best.decision_id}: ${where})`, fmt(sum.best.reward)));
  } else out.push(f("best feasible", "—"));
  for (const c of sum.constraints || []) out.push(f(`${c.name}: ${c.kind} violation`, fmt(c.violation)));
  return el("div", { class: "facts", id: "facts" }, ...out);
}

function table(study, decs) {
  const spec = study.spec;
  const cons = spec.constraints || [];
  const pnames = (spec.parameters || []).map((p) => p.name);
  const head = ["decision", "round", ...(pnames.length ? pnames : ["x"]), spec.objective.name, ...cons.map((c) => c.name), "status", "created"];
  const rows = decs.slice(-TABLE_ROWS).reverse().map((d) => {
    const violated = d.costs && d.costs.some((c, j) => c > cons[j].threshold);
    const status = d.abandoned ? "abandoned" : d.reward != null && (cons.length === 0 || d.costs) ? "observed" : "pending";
    const where = pnames.length ? pnames.map((n) => el("td", { text: fmt(d.params ? d.params[n] : "") })) : [el("td", { text: "[" + d.x.map(fmt).join(", ") + "]" })];
    return el("tr", { class: d.abandoned ? "abandoned" : violated ? "violated" : "" },
      el("td", { class: "num", text: String(d.decision_id) }), el("td", { class: "num", text: String(d.round) }), ...where,
      el("td", { class: "num", text: fmt(d.reward) }),
      ...cons.map((c, j) => el("td", { class: "num", text: d.costs ? fmt(d.costs[j]) : "" })),
      el("td", { text: status }), el("td", { text: new Date(d.created).toLocaleTimeString() }));
  });
  return el("table", { id: "decisions" }, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { text: h })))), el("tbody", {}, ...rows));
}

async function downloadCSV(id, name) {
  const headers = {};
  const tok = sessionStorage.getItem(TOKEN_KEY);
  if (tok) headers.Authorization = "Bearer " + tok;
  const resp = await fetch(`/studies/${encodeURIComponent(id)}/decisions.csv`, { headers });
  if (!resp.ok) { setStatus("CSV export failed: HTTP " + resp.status); return; }
  const url = URL.createObjectURL(await resp.blob());
  const a = el("a", { href: url, download: name + "-decisions.csv" });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function studyPage(id, gen) {
  const [study, sum, decs] = await Promise.all([
    api(`/studies/${encodeURIComponent(id)}`), api(`/studies/${encodeURIComponent(id)}/summary`), allDecisions(id)]);
  if (gen !== generation) return;
  const spec = study.spec;
  const s = series(study, decs);
  const obj = spec.objective;
  const charts = [chart("chart-objective", `${obj.name} per round (${obj.goal || "maximize"})`, [
    { name: obj.name, points: s.reward, kind: "dots", color: COLORS[0] },
    { name: "best feasible so far", points: s.best, kind: "line", color: COLORS[1] }], {})];
  (spec.constraints || []).forEach((c, j) => {
    const pts = s.costs[j];
    const list = [{ name: c.name, points: pts, kind: "dots", color: COLORS[(j + 2) % COLORS.length] }];
    if (pts.length) list.push({ name: "threshold " + fmt(c.threshold), points: [[pts[0][0], c.threshold], [pts[pts.length - 1][0], c.threshold]], kind: "hline", color: "#b42318" });
    charts.push(chart("chart-constraint-" + j, `${c.name} per round (≤ ${fmt(c.threshold)}, ${c.kind})`, list, {}));
  });
  if ((spec.constraints || []).length) {
    charts.push(chart("chart-violation", "cumulative violation Σ [metric − threshold]⁺",
      spec.constraints.map((c, j) => ({ name: c.name, points: s.cum[j], kind: "line", color: COLORS[(j + 2) % COLORS.length] })), {}));
  }
  const desc = [spec.algorithm, "seed " + spec.seed, spec.horizon ? "horizon " + spec.horizon : "open-ended",
    spec.parameters ? spec.parameters.map((p) => p.type === "categorical" ? `${p.name} ∈ {${p.choices.join(", ")}}` : `${p.name} ∈ [${fmt(p.low)}, ${fmt(p.high)}] ${p.type}${p.log ? " log" : ""}`).join("; ") :
      spec.space.type + " space"].join(" · ");
  document.getElementById("main").replaceChildren(
    el("p", {}, el("a", { href: "#/", text: "← studies" })),
    el("h1", { id: "study-name", text: spec.name }),
    el("p", { class: "muted", text: desc + " · " + study.id }),
    facts(study, sum),
    el("div", { class: "charts" }, ...charts),
    el("h2", { text: `Decisions (latest ${Math.min(decs.length, TABLE_ROWS)} of ${decs.length})` },
      " ", el("button", { id: "csv", onclick: () => downloadCSV(id, spec.name), text: "download CSV" })),
    table(study, decs));
  setStatus(`${spec.name}: ${sum.rounds} rounds · refreshed ${new Date().toLocaleTimeString()}`);
  timer = setTimeout(() => {
    if (gen !== generation) return;
    if (document.hidden) { timer = setTimeout(() => route(), REFRESH_MS); return; }
    studyPage(id, gen).catch((err) => setStatus("refresh failed: " + (err.message || err)));
  }, REFRESH_MS);
}

document.getElementById("login").addEventListener("submit", (ev) => {
  ev.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value);
  route();
});
document.getElementById("logout").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  route();
});
window.addEventListener("hashchange", route);
route();
