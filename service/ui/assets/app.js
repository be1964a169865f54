// cbandit dashboard: a list of studies and, per study, charts drawn as SVG
// by this script. No library, no network beyond this server. Data comes from
// the API with the token kept in sessionStorage (see package ui's doc.go).
//
// Why hand-written SVG and not a charting library (service/ui/README.md
// has the measurements): every number is a text node of the DOM, so the
// browser test reads the numbers a person sees and compares them with the
// API's; the page keeps its strict CSP (no inline styles); the whole
// dashboard is smaller than any library that draws slices and parallel
// coordinates (uPlot 51 KB has neither, Chart.js 210 KB draws on canvas,
// ECharts 1.1 MB). What a library would add — zoom, pan — is not needed yet.
"use strict";

const TOKEN_KEY = "cbandit.token";
const REFRESH_MS = 3000;
const PAGE = 1000; // the API's largest page of decisions (MaxPageSize)
const MAX_DECISIONS = 100000; // the page reads at most this many decisions
const TABLE_ROWS = 200;
const MAX_DOTS = 5000; // per chart: the latest decisions, the rest are left out (and said so)
const MAX_PARAM_POINTS = 2000; // per-parameter views: the latest observed decisions
const SVGNS = "http://www.w3.org/2000/svg";

// Colours: objective, best-so-far, and one per constraint; red marks a violation.
const C = {
  objective: "#2563eb", best: "#d97706", infeasible: "#dc2626", unknown: "#9ca3af",
  threshold: "#b42318", longTerm: "#7c3aed", cumulative: "#0891b2",
  failed: "#991b1b", // a failed evaluation's ×: darker than an infeasible ring, so the legends tell them apart
};
const SERIES = ["#059669", "#7c3aed", "#db2777", "#0891b2", "#65a30d", "#ea580c", "#4f46e5", "#0d9488"];

let timer = null;
let generation = 0; // bumps on navigation: late answers of an old page are dropped
let cache = null; // {id, decs}: the decisions read so far of the study on screen

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
  for (const [k, v] of Object.entries(attrs || {})) if (v != null) e.setAttribute(k, String(v));
  if (text != null) e.textContent = text;
  return e;
}

class AuthError extends Error {}

// apiResponse fetches a same-origin path with the token and returns the
// decoded JSON body and the response.
async function apiResponse(path) {
  const headers = { Accept: "application/json" };
  const tok = sessionStorage.getItem(TOKEN_KEY);
  if (tok) headers.Authorization = "Bearer " + tok;
  const resp = await fetch(path, { headers, cache: "no-store" });
  if (resp.status === 401) throw new AuthError("the server wants a token");
  outage(resp);
  const body = await resp.json().catch(() => null);
  if (!resp.ok) {
    const e = body && body.error;
    throw new Error(e ? `${e.status} ${e.code}${e.field ? " (" + e.field + ")" : ""}: ${e.message}` : `HTTP ${resp.status}`);
  }
  return { body, resp };
}

// outage shows the banner instead of the page's numbers while the API
// answers 503 (its store unavailable), and reloads the page after the
// answer's Retry-After; the first other answer hides it.
let outageTimer = null;
function outage(resp) {
  const down = resp.status === 503;
  document.getElementById("outage").hidden = !down;
  document.getElementById("main").hidden = down;
  if (down && !outageTimer) {
    const wait = Math.max(1, Number(resp.headers.get("Retry-After")) || 0) * 1000;
    outageTimer = setTimeout(() => { outageTimer = null; route(); }, Math.max(wait, REFRESH_MS / 2));
  }
}

async function api(path) {
  return (await apiResponse(path)).body;
}

// trimZeros drops the zeros at the end of a fraction: "1029.580" → "1029.58",
// "1.2300e-5" → "1.23e-5"; never the zeros of an integer part ("1030").
function trimZeros(s) {
  return s.replace(/(\.\d*?)0+(?=$|e)/, "$1").replace(/\.(?=$|e)/, "").replace("e+", "e");
}

// fmt shows a number of the API to 6 significant digits (the table's cells
// carry the exact value in their tooltip).
function fmt(v) {
  if (v == null || v === "") return "";
  if (typeof v !== "number") return String(v);
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const a = Math.abs(v);
  if (a < 1e-4 || a >= 1e15) return trimZeros(v.toExponential(5));
  return trimZeros(v.toPrecision(6));
}

// Axes. A linear axis has round ticks (1, 2 or 5 × 10^k apart) and ends on
// ticks; a log axis has ticks at 1, 2, 5 × 10^k (or powers of 10 only over
// many decades); a band axis places categories.
function niceStep(span, n) {
  const raw = span / n;
  const e = Math.floor(Math.log10(raw));
  const f = raw / Math.pow(10, e);
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * Math.pow(10, e);
}

function tickLabel(v, step) {
  if (Math.abs(v) < step / 2) return "0";
  const e = Math.floor(Math.log10(step) + 1e-9);
  if (Math.max(Math.abs(v), step) >= 1e6 || step < 1e-4) {
    return trimZeros(v.toExponential(Math.max(0, Math.floor(Math.log10(Math.abs(v)) + 1e-9) - e)));
  }
  return v.toFixed(Math.max(0, -e));
}

function linearAxis(values, n, integer) {
  let lo = Math.min(...values), hi = Math.max(...values);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) { lo = 0; hi = 1; }
  if (hi === lo) { const d = lo === 0 ? 1 : Math.abs(lo) / 10; lo -= d; hi += d; }
  let step = niceStep(hi - lo, n || 5);
  if (integer) step = Math.max(1, Math.round(step));
  const k0 = Math.floor(lo / step + 1e-9), k1 = Math.ceil(hi / step - 1e-9);
  const ticks = [];
  for (let k = k0; k <= k1; k++) ticks.push({ v: k * step, label: tickLabel(k * step, step) });
  return { type: "linear", lo: k0 * step, hi: k1 * step, ticks, pos: (v) => (v - k0 * step) / ((k1 - k0) * step) };
}

function logAxis(lo, hi) {
  const a = Math.floor(Math.log10(lo) + 1e-9), b = Math.ceil(Math.log10(hi) - 1e-9);
  const mults = b - a <= 2 ? [1, 2, 5] : [1];
  const stride = Math.max(1, Math.ceil((b - a) / 6));
  const ticks = [];
  for (let e = a; e <= b; e++) {
    if ((e - a) % stride) continue;
    for (const m of mults) {
      const v = m * Math.pow(10, e);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push({ v, label: fmt(Number(v.toPrecision(12))) });
    }
  }
  const l0 = Math.log(lo), l1 = Math.log(hi);
  return { type: "log", lo, hi, ticks, pos: (v) => (Math.log(v) - l0) / (l1 - l0) };
}

function bandAxis(choices) {
  const n = choices.length;
  const index = new Map(choices.map((c, i) => [String(c), i]));
  return {
    type: "band", lo: 0, hi: n, ticks: choices.map((c, i) => ({ v: c, label: String(c), at: (i + 0.5) / n })),
    pos: (v) => (index.has(String(v)) ? index.get(String(v)) + 0.5 : 0) / n, band: 1 / n,
  };
}

// jitter spreads the points of one category over part of its band: a
// deterministic offset in [-0.3, 0.3] from the decision ID.
function jitter(id) {
  const h = Math.sin(id * 12.9898) * 43758.5453;
  return (h - Math.floor(h) - 0.5) * 0.6;
}

const FONT = '11px system-ui, "DejaVu Sans", sans-serif'; // the charts' text (app.css)
const TITLE_FONT = '600 13px system-ui, "DejaVu Sans", sans-serif';
let measurer = null;
// textWidth is the width in pixels of a text of the charts.
function textWidth(s, font) {
  if (!measurer) measurer = document.createElement("canvas").getContext("2d");
  measurer.font = font || FONT;
  return measurer.measureText(s).width;
}

// legendItems draws legend entries (swatch + name) from (x, y), wrapping at
// maxX; it returns the y below the last row.
function legendItems(root, items, x0, y, maxX) {
  let x = x0;
  for (const it of items) {
    const w = 20 + textWidth(it.name);
    if (x > x0 && x + w > maxX) { x = x0; y += 16; }
    const g = svg("g", { class: "legend-item" });
    if (it.shape === "line" || it.shape === "dash") {
      g.append(svg("line", { x1: x, x2: x + 14, y1: y - 4, y2: y - 4, stroke: it.color, "stroke-width": it.shape === "dash" ? 1.5 : 2.5, "stroke-dasharray": it.shape === "dash" ? "4 3" : null, class: "swatch" }));
    } else if (it.shape === "cross") {
      g.append(svg("path", { d: cross(x + 7, y - 4, 4), stroke: it.color, "stroke-width": 2, fill: "none", class: "swatch" }));
    } else if (it.shape === "ring") {
      g.append(svg("circle", { cx: x + 7, cy: y - 4, r: 4, fill: "#fff", stroke: it.color, "stroke-width": 1.8, class: "swatch" }));
    } else {
      g.append(svg("rect", { x: x + 1, y: y - 9, width: 10, height: 10, rx: 2, fill: it.color, class: "swatch" }));
    }
    g.append(svg("text", { x: x + 18, y }, it.name));
    root.append(g);
    x += w + 10;
  }
  return y + 10;
}

// cross is the path of an × of half-size r centred at (x, y): the mark of a
// failed evaluation.
function cross(x, y, r) {
  const f = (v) => v.toFixed(2);
  return `M${f(x - r)},${f(y - r)}L${f(x + r)},${f(y + r)}M${f(x - r)},${f(y + r)}L${f(x + r)},${f(y - r)}`;
}

// chart draws one SVG chart.
//   o.title; o.w, o.h; o.x, o.y: axes (linearAxis, logAxis, bandAxis);
//   o.xlabel, o.ylabel; o.legend: [{name, color, shape}] (omit for none);
//   o.series: [{kind: "dots"|"line"|"hline", color, points, ...}] where a
//   dots series has points {x, y, id, tip, ring} and a line [[x, y], ...]
//   (step: true holds each value until the next point); a "fails" series
//   has points {x, id, tip}: failed evaluations, which have no value, drawn
//   as × at the plot's bottom edge (data-failed counts them).
function chart(id, o) {
  const W = o.w || 560, H = o.h || 280, R = 16, B = 38;
  const yw = Math.max(...o.y.ticks.map((t) => textWidth(t.label)));
  const L = Math.max(40, Math.ceil(yw) + 14) + (o.ylabel ? 14 : 0);
  const root = svg("svg", { id, class: "chart", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": o.title });
  let title = o.title;
  while (title.length > 4 && textWidth(title, TITLE_FONT) > W - 16) title = title.slice(0, -2) + "…";
  const t = svg("text", { x: 8, y: 17, class: "title" }, title);
  if (title !== o.title) t.append(svg("title", {}, o.title));
  root.append(t);
  const T = o.legend && o.legend.length ? legendItems(root, o.legend, 8, 35, W - 8) + 6 : 30;
  const pw = W - L - R, ph = H - T - B;
  const sx = (v) => L + o.x.pos(v) * pw;
  const sy = (v) => H - B - o.y.pos(v) * ph;
  root.dataset.plot = [L, T, pw, ph].join(",");
  for (const tk of o.y.ticks) {
    root.append(svg("line", { x1: L, x2: L + pw, y1: sy(tk.v), y2: sy(tk.v), class: "grid" }));
    root.append(svg("text", { x: L - 6, y: sy(tk.v) + 4, "text-anchor": "end", class: "ytick" }, tk.label));
  }
  for (const tk of o.x.ticks) {
    const x = tk.at != null ? L + tk.at * pw : sx(tk.v);
    root.append(svg("line", { x1: x, x2: x, y1: H - B, y2: H - B + 4, class: "axis" }));
    root.append(svg("text", { x, y: H - B + 15, "text-anchor": "middle", class: "xtick" }, tk.label));
  }
  root.append(svg("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }));
  root.append(svg("line", { x1: L, x2: L + pw, y1: H - B, y2: H - B, class: "axis" }));
  root.append(svg("text", { x: L + pw / 2, y: H - 6, "text-anchor": "middle", class: "xlabel" }, o.xlabel || "round"));
  if (o.ylabel) root.append(svg("text", { x: 0, y: 0, transform: `translate(11,${T + ph / 2}) rotate(-90)`, "text-anchor": "middle", class: "ylabel" }, o.ylabel));
  let npts = 0, nfail = 0;
  for (const s of o.series) {
    if (s.kind === "fails") {
      const g = svg("g", { class: "fails" });
      for (const p of s.points) {
        const x = o.x.type === "band" ? L + (o.x.pos(p.x) + jitter(p.id) * o.x.band) * pw : sx(p.x);
        const c = svg("path", { d: cross(x, H - B - 6, 4), stroke: s.color, "stroke-width": 2, fill: "none", class: "fail", "data-id": p.id });
        if (p.tip) c.append(svg("title", {}, p.tip));
        g.append(c);
      }
      nfail += s.points.length;
      root.append(g);
    } else if (s.kind === "dots") {
      const g = svg("g", { class: "dots " + (s.cls || "") });
      for (const p of s.points) {
        const x = o.x.type === "band" ? L + (o.x.pos(p.x) + jitter(p.id) * o.x.band) * pw : sx(p.x);
        const c = svg("circle", p.ring ? { cx: x.toFixed(2), cy: sy(p.y).toFixed(2), r: 3.4, fill: "#fff", stroke: s.color, "stroke-width": 1.6 } :
          { cx: x.toFixed(2), cy: sy(p.y).toFixed(2), r: 2.8, fill: s.color, "fill-opacity": 0.8 });
        if (p.id != null) c.setAttribute("data-id", String(p.id));
        if (p.tip) c.append(svg("title", {}, p.tip));
        g.append(c);
      }
      npts += s.points.length;
      root.append(g);
    } else if (s.kind === "hline") {
      root.append(svg("line", { x1: L, x2: L + pw, y1: sy(s.y), y2: sy(s.y), stroke: s.color, "stroke-width": 1.5, "stroke-dasharray": "6 4", class: "threshold" }));
    } else if (s.points.length) {
      // A step line holds its value until the next point (the best so far).
      const d = s.points.map(([x, y], i) => (i ? (s.step ? "H" + sx(x).toFixed(2) + "L" : "L") : "M") + sx(x).toFixed(2) + "," + sy(y).toFixed(2)).join("");
      root.append(svg("path", { d, fill: "none", stroke: s.color, "stroke-width": s.width || 2, "stroke-dasharray": s.dash || null, class: "line " + (s.cls || "") }));
      npts += s.points.length;
    }
  }
  root.setAttribute("data-points", String(npts));
  root.setAttribute("data-failed", String(nfail));
  if (npts === 0 && nfail === 0) root.append(svg("text", { x: L + pw / 2, y: T + ph / 2, "text-anchor": "middle", class: "muted" }, "no observation yet"));
  return root;
}

function thin(points, max) { // at most max vertices of a line, the last kept
  if (points.length <= max) return points;
  const k = Math.ceil(points.length / max);
  return points.filter((_, i) => i % k === 0 || i === points.length - 1);
}

const KIND = {
  "long-term": { figure: "long-term violation [Σ g]⁺", say: "the excess of the total over the limit: rounds under it make up for rounds over it" },
  cumulative: { figure: "cumulative violation Σ [g]⁺", say: "every round's excess adds up; nothing makes up for it" },
  "stage-wise": { figure: "violating rounds", say: "each round must keep the limit: the number of rounds that did not" },
};

function kindOf(c) { return c.kind || "long-term"; }

// model computes from the decisions what the charts and cards show.
function model(study, decs) {
  const spec = study.spec;
  const cons = spec.constraints || [];
  const sign = spec.objective.goal === "minimize" ? -1 : 1;
  const rows = decs.map((d) => {
    const costsIn = cons.length === 0 || (d.costs && d.costs.length === cons.length);
    const violated = cons.length > 0 && !!d.costs && d.costs.some((c, j) => c > cons[j].threshold);
    return { d, status: d.abandoned ? "abandoned" : d.failed ? "failed" + (d.reason ? ": " + d.reason : "") : d.reward != null && costsIn ? "observed" : "pending", feasible: costsIn && !violated, violated };
  });
  const best = [];
  let bestV = null, bestRow = null;
  const hard = cons.map(() => []), soft = cons.map(() => []);
  const sumPos = cons.map(() => 0), sum = cons.map(() => 0), count = cons.map(() => 0);
  for (const r of rows) {
    const d = r.d;
    if (d.costs) d.costs.forEach((c, j) => {
      const g = c - cons[j].threshold;
      sum[j] += g;
      if (g > 0) { sumPos[j] += g; count[j]++; }
      hard[j].push([d.round, sumPos[j]]);
      soft[j].push([d.round, Math.max(0, sum[j])]);
    });
    if (d.reward != null && r.feasible && (bestV === null || sign * d.reward > sign * bestV)) {
      bestV = d.reward; bestRow = r;
      best.push([d.round, bestV]);
    } else if (bestV !== null) best.push([d.round, bestV]);
  }
  return { rows, best, bestRow, hard, soft, sumPos, sum, count };
}

function describeParams(d, spec) {
  if (d.params) return Object.entries(d.params).map(([k, v]) => `${k}=${fmt(v)}`).join(", ");
  return "x = [" + (d.x || []).map(fmt).join(", ") + "]";
}

function tipOf(r, spec) {
  const d = r.d, cons = spec.constraints || [];
  const parts = [`decision ${d.decision_id}, round ${d.round}: ${describeParams(d, spec)}`, `${spec.objective.name} = ${fmt(d.reward)}`];
  cons.forEach((c, j) => parts.push(`${c.name} = ${d.costs ? fmt(d.costs[j]) : "pending"} (≤ ${fmt(c.threshold)})`));
  if (r.violated) parts.push("infeasible");
  return parts.join("\n");
}

// failTip is a failed evaluation's tooltip: where, and the reason.
function failTip(r, spec) {
  const d = r.d;
  return `decision ${d.decision_id}, round ${d.round}: ${describeParams(d, spec)}\nfailed: ${d.reason || "no reason given"} (no value)`;
}

function failPoints(rows, spec, x) {
  return rows.map((r) => ({ x: x(r), id: r.d.decision_id, tip: failTip(r, spec) })).filter((p) => p.x != null);
}

function latest(rows, max) {
  return rows.length > max ? rows.slice(rows.length - max) : rows;
}

// historyCharts: the objective per round with infeasible rounds marked and
// the best feasible value so far; each constraint per round with its
// threshold; each constraint's violation so far, both sums named.
function historyCharts(study, m) {
  const spec = study.spec, obj = spec.objective, cons = spec.constraints || [];
  const rows = latest(m.rows.filter((r) => r.d.reward != null), MAX_DOTS);
  const pts = (f) => rows.filter(f).map((r) => ({ x: r.d.round, y: r.d.reward, id: r.d.decision_id, tip: tipOf(r, spec), ring: !r.feasible }));
  const feas = pts((r) => r.feasible), bad = pts((r) => r.violated), unknown = pts((r) => !r.feasible && !r.violated);
  const best = thin(m.best, 2000);
  const rounds = m.rows.map((r) => r.d.round);
  const xAxis = linearAxis(rounds.length ? rounds : [1], 6, true);
  // Failed rounds have no value: an × at the bottom edge of each per-round chart.
  const fails = failPoints(latest(m.rows.filter((r) => r.d.failed), MAX_DOTS), spec, (r) => r.d.round);
  const failLegend = fails.length ? [{ name: "failed (no value)", color: C.failed, shape: "cross" }] : [];
  const failSeries = { kind: "fails", color: C.failed, points: fails };
  const legend = [{ name: `${obj.name} (feasible)`, color: C.objective }];
  if (cons.length) legend.push({ name: "infeasible: a constraint exceeded", color: C.infeasible, shape: "ring" });
  if (unknown.length) legend.push({ name: "constraints not yet told", color: C.unknown, shape: "ring" });
  legend.push({ name: "best feasible so far", color: C.best, shape: "line" }, ...failLegend);
  const yv = rows.map((r) => r.d.reward).concat(best.map((p) => p[1]));
  const charts = [chart("chart-objective", {
    title: `${obj.name} per round (${obj.goal || "maximize"})`, x: xAxis, y: linearAxis(yv.length ? yv : [0, 1], 5), ylabel: obj.name, legend,
    series: [{ kind: "line", color: C.best, points: best, cls: "best", step: true }, { kind: "dots", color: C.objective, points: feas, cls: "feasible" },
      { kind: "dots", color: C.unknown, points: unknown, cls: "unknown" }, { kind: "dots", color: C.infeasible, points: bad, cls: "infeasible" }, failSeries],
  })];
  cons.forEach((c, j) => {
    const cr = latest(m.rows.filter((r) => r.d.costs), MAX_DOTS);
    const p = (f) => cr.filter(f).map((r) => ({ x: r.d.round, y: r.d.costs[j], id: r.d.decision_id, tip: tipOf(r, spec), ring: r.d.costs[j] > c.threshold }));
    const color = SERIES[j % SERIES.length];
    const yv2 = cr.map((r) => r.d.costs[j]).concat([c.threshold]);
    charts.push(chart("chart-constraint-" + j, {
      title: `${c.name} per round (limit ≤ ${fmt(c.threshold)}, ${kindOf(c)})`, x: xAxis, y: linearAxis(yv2, 5), ylabel: c.name,
      legend: [{ name: `${c.name} within the limit`, color }, { name: "over the limit", color: C.infeasible, shape: "ring" },
        { name: `limit ${fmt(c.threshold)}`, color: C.threshold, shape: "dash" }, ...failLegend],
      series: [{ kind: "hline", y: c.threshold, color: C.threshold }, { kind: "dots", color, points: p((r) => r.d.costs[j] <= c.threshold), cls: "within" },
        { kind: "dots", color: C.infeasible, points: p((r) => r.d.costs[j] > c.threshold), cls: "infeasible" }, failSeries],
    }));
  });
  cons.forEach((c, j) => {
    const k = kindOf(c);
    const hard = thin(m.hard[j], 2000), soft = thin(m.soft[j], 2000);
    const yv3 = hard.map((p) => p[1]).concat(soft.map((p) => p[1]), [0]);
    const mine = (kk) => (kk === k ? " ← this study's kind" : "");
    charts.push(chart("chart-violation-" + j, {
      title: `${c.name}: violation so far, g = ${c.name} − ${fmt(c.threshold)}`, x: xAxis, y: linearAxis(yv3, 5), ylabel: "violation",
      legend: [{ name: "cumulative Σ [g]⁺" + mine("cumulative"), color: C.cumulative, shape: k === "cumulative" ? "line" : "dash" },
        { name: "long-term [Σ g]⁺" + mine("long-term"), color: C.longTerm, shape: k === "long-term" ? "line" : "dash" }],
      series: [{ kind: "line", color: C.cumulative, points: hard, width: k === "cumulative" ? 2.5 : 1.5, dash: k === "cumulative" ? null : "5 3", cls: "cumulative" },
        { kind: "line", color: C.longTerm, points: soft, width: k === "long-term" ? 2.5 : 1.5, dash: k === "long-term" ? null : "5 3", cls: "long-term" }],
    }));
  });
  return charts;
}

// paramList: the study's parameters, or its coordinates x1..xd.
function paramList(spec, decs) {
  if (spec.parameters && spec.parameters.length) return spec.parameters.map((p) => ({ ...p, get: (d) => (d.params ? d.params[p.name] : undefined) }));
  const dim = decs.length ? (decs[0].x || []).length : 0;
  const sp = spec.space || {};
  return Array.from({ length: dim }, (_, i) => ({
    name: "x" + (i + 1), type: "float", low: sp.lo ? sp.lo[i] : undefined, high: sp.hi ? sp.hi[i] : undefined, get: (d) => (d.x || [])[i],
  }));
}

function paramAxis(p, values) {
  if (p.type === "categorical") return bandAxis(p.choices);
  if (p.log && p.low > 0) return logAxis(p.low, p.high);
  const vs = values.concat(p.low != null ? [p.low, p.high] : []);
  return linearAxis(vs.length ? vs : [0, 1], 4, p.type === "int");
}

// metricsOf: the objective and each constraint, as functions of a row.
function metricsOf(spec) {
  const cons = spec.constraints || [];
  return [{ name: spec.objective.name, get: (r) => r.d.reward, limit: null, color: C.objective }]
    .concat(cons.map((c, j) => ({ name: c.name, get: (r) => (r.d.costs ? r.d.costs[j] : undefined), limit: c.threshold, color: SERIES[j % SERIES.length] })));
}

// sliceCharts: each metric against each parameter (slice plots), every
// observed decision a dot, infeasible ones as red rings, failed ones an × at
// their parameter value on the bottom edge.
function sliceCharts(study, m, decs) {
  const spec = study.spec;
  const params = paramList(spec, decs);
  const rows = latest(m.rows.filter((r) => r.status === "observed"), MAX_PARAM_POINTS);
  const failed = latest(m.rows.filter((r) => r.d.failed), MAX_PARAM_POINTS);
  const out = [];
  metricsOf(spec).forEach((mt, i) => {
    const vals = rows.map(mt.get).filter((v) => v != null);
    const y = linearAxis((vals.length ? vals : [0, 1]).concat(mt.limit != null ? [mt.limit] : []), 4);
    params.forEach((p, k) => {
      const x = paramAxis(p, rows.concat(failed).map((r) => p.get(r.d)).filter((v) => typeof v === "number"));
      const pts = (f) => rows.filter((r) => f(r) && mt.get(r) != null && p.get(r.d) != null)
        .map((r) => ({ x: p.get(r.d), y: mt.get(r), id: r.d.decision_id, tip: tipOf(r, spec), ring: mt.limit != null ? mt.get(r) > mt.limit : r.violated }));
      const bad = mt.limit != null ? (r) => mt.get(r) > mt.limit : (r) => r.violated;
      const series = [{ kind: "dots", color: mt.color, points: pts((r) => !bad(r)), cls: "feasible" }, { kind: "dots", color: C.infeasible, points: pts(bad), cls: "infeasible" }];
      series.push({ kind: "fails", color: C.failed, points: failPoints(failed, spec, (r) => p.get(r.d)) });
      if (mt.limit != null) series.unshift({ kind: "hline", y: mt.limit, color: C.threshold });
      out.push(chart(`slice-${i}-${k}`, { title: `${mt.name} vs ${p.name}${p.log ? " (log)" : ""}`, w: 300, h: 230, x, y, xlabel: p.name, series }));
    });
  });
  return { charts: out, columns: params.length, shown: rows.length, failed: failed.length };
}

// ramp maps t in [0, 1] to a light-to-dark blue (darker: better objective).
function ramp(t) {
  const a = [191, 219, 254], b = [30, 58, 138];
  return "rgb(" + a.map((v, i) => Math.round(v + (b[i] - v) * t)).join(",") + ")";
}

// parallelChart: parallel coordinates, one axis per parameter and metric,
// one line per observed decision; feasible lines shaded by the objective
// (darker is better), infeasible ones red, the best feasible one orange.
function parallelChart(study, m, decs) {
  const spec = study.spec;
  const params = paramList(spec, decs);
  const rows = latest(m.rows.filter((r) => r.status === "observed"), MAX_PARAM_POINTS);
  const failed = latest(m.rows.filter((r) => r.d.failed), MAX_PARAM_POINTS);
  const metrics = metricsOf(spec);
  const axes = params.map((p) => ({ name: p.name, get: (r) => p.get(r.d), axis: paramAxis(p, rows.concat(failed).map((r) => p.get(r.d)).filter((v) => typeof v === "number")) }))
    .concat(metrics.map((mt) => {
      const vals = rows.map(mt.get).filter((v) => v != null).concat(mt.limit != null ? [mt.limit] : []);
      return { name: mt.name, get: mt.get, axis: linearAxis(vals.length ? vals : [0, 1], 4), limit: mt.limit };
    }));
  const W = Math.max(720, 140 * axes.length), H = 360, T = 64, B = 24, L = 60, R = 60;
  const root = svg("svg", { id: "parallel", class: "chart", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "parallel coordinates" });
  root.append(svg("text", { x: 8, y: 17, class: "title" }, `parallel coordinates: ${rows.length} observed decisions` + (failed.length ? `, ${failed.length} failed` : "")));
  legendItems(root, [{ name: `feasible (darker: better ${spec.objective.name})`, color: ramp(0.7) }, { name: "infeasible", color: C.infeasible, shape: "line" },
    { name: "best feasible", color: C.best, shape: "line" }, ...(failed.length ? [{ name: "failed: parameters only, × where the values would start", color: C.failed, shape: "cross" }] : [])], 8, 35, W - 8);
  const ax = (i) => L + i * (W - L - R) / Math.max(1, axes.length - 1);
  const ay = (a, v) => H - B - a.axis.pos(v) * (H - T - B);
  const sign = spec.objective.goal === "minimize" ? -1 : 1;
  const rs = rows.filter((r) => r.feasible).map((r) => sign * r.d.reward);
  const rlo = Math.min(...rs), rhi = Math.max(...rs);
  const lines = svg("g", { class: "pc-lines" });
  const ordered = rows.filter((r) => !r.feasible).concat(rows.filter((r) => r.feasible && r !== m.bestRow).sort((a, b) => sign * (a.d.reward - b.d.reward)));
  if (m.bestRow && rows.includes(m.bestRow)) ordered.push(m.bestRow);
  // A failed evaluation has parameters but no metric: a dashed line over the
  // parameter axes, ended by an × on the first metric axis's bottom.
  const py = (a, r) => (a.axis.type === "band" ? H - B - (a.axis.pos(a.get(r)) + jitter(r.d.decision_id) * a.axis.band * 0.5) * (H - T - B) : ay(a, a.get(r)));
  for (const r of failed) {
    const pts = params.map((p, i) => ax(i).toFixed(1) + "," + py(axes[i], r).toFixed(1));
    const pl = svg("polyline", { points: pts.join(" "), fill: "none", stroke: C.failed, "stroke-width": 1.2, "stroke-dasharray": "4 3", "stroke-opacity": 0.7,
      class: "failed", "data-id": r.d.decision_id });
    pl.append(svg("title", {}, failTip(r, spec)));
    lines.append(pl);
    const x = ax(params.length);
    const mk = svg("path", { d: cross(x, H - B - 6, 4), stroke: C.failed, "stroke-width": 2, fill: "none", class: "fail", "data-id": r.d.decision_id });
    mk.append(svg("title", {}, failTip(r, spec)));
    lines.append(mk);
  }
  for (const r of ordered) {
    const pts = axes.map((a, i) => {
      const v = a.get(r);
      const y = a.axis.type === "band" ? H - B - (a.axis.pos(v) + jitter(r.d.decision_id) * a.axis.band * 0.5) * (H - T - B) : ay(a, v);
      return ax(i).toFixed(1) + "," + y.toFixed(1);
    });
    const best = r === m.bestRow;
    const color = best ? C.best : r.feasible ? ramp(rhi > rlo ? (sign * r.d.reward - rlo) / (rhi - rlo) : 1) : C.infeasible;
    const pl = svg("polyline", { points: pts.join(" "), fill: "none", stroke: color, "stroke-width": best ? 3 : 1.2, "stroke-opacity": r.feasible ? 0.85 : 0.35,
      class: best ? "best" : r.feasible ? "feasible" : "infeasible", "data-id": r.d.decision_id });
    pl.append(svg("title", {}, tipOf(r, spec)));
    lines.append(pl);
  }
  root.append(lines);
  axes.forEach((a, i) => {
    const x = ax(i);
    root.append(svg("line", { x1: x, x2: x, y1: T, y2: H - B, class: "pc-axis" }));
    root.append(svg("text", { x, y: T - 8, "text-anchor": "middle", class: "pc-name" }, a.name));
    for (const tk of a.axis.ticks) {
      const y = tk.at != null ? H - B - tk.at * (H - T - B) : ay(a, tk.v);
      root.append(svg("line", { x1: x - 3, x2: x, y1: y, y2: y, class: "axis" }));
      root.append(svg("text", { x: x - 5, y: y + 4, "text-anchor": "end", class: "pc-tick" }, tk.label));
    }
    if (a.limit != null) {
      const y = ay(a, a.limit);
      root.append(svg("line", { x1: x - 7, x2: x + 7, y1: y, y2: y, stroke: C.threshold, "stroke-width": 2.5, class: "threshold" }));
      root.append(svg("text", { x: x + 9, y: y + 4, class: "pc-limit" }, "≤ " + fmt(a.limit)));
    }
  });
  root.setAttribute("data-lines", String(ordered.length));
  root.setAttribute("data-failed", String(failed.length));
  return root;
}

function facts(study, sum, m) {
  const spec = study.spec;
  const f = (label, value, note, cls) => el("div", { class: "fact " + (cls || "") }, el("b", { text: value }), el("span", { class: "label", text: label }), note ? el("span", { class: "muted note", text: note }) : null);
  const out = [
    f("rounds", String(sum.rounds) + (sum.horizon ? " / " + sum.horizon : "")),
    f("observed", String(sum.reward_observed)),
    f("pending", String(sum.pending)),
  ];
  if (sum.abandoned) out.push(f("abandoned", String(sum.abandoned)));
  if (sum.failed) out.push(f("failed", String(sum.failed), Object.entries(sum.failure_reasons || {}).map(([k, v]) => `${k || "no reason"}: ${v}`).join(", "), "failed"));
  if (sum.best) {
    out.push(f(`best feasible ${spec.objective.name}`, fmt(sum.best.reward), `decision ${sum.best.decision_id}: ${describeParams(sum.best, spec)}`, "best"));
  } else out.push(f(`best feasible ${spec.objective.name}`, "—", "no round yet within every limit", "best"));
  if (sum.recommendation) {
    // The model's choice among the evaluated configurations (P(every limit holds) ≥ 0.95), not one lucky observation.
    const r = sum.recommendation;
    const card = f(`recommended: posterior ${spec.objective.name}`, `${fmt(r.objective.mean)} ± ${fmt(r.objective.std)}`,
      `decision ${r.decision_id}: ${describeParams(r, spec)}; P(every limit holds) = ${fmt(r.feasible)}`, "recommendation");
    card.id = "recommendation";
    card.setAttribute("data-decision", String(r.decision_id));
    out.push(card);
  }
  (sum.constraints || []).forEach((c, j) => {
    const k = KIND[c.kind] ? c.kind : "long-term";
    const others = [];
    if (k !== "cumulative") others.push(`cumulative Σ [g]⁺ = ${fmt(c.violation_hard)}`);
    if (k !== "long-term") others.push(`long-term [Σ g]⁺ = ${fmt(c.violation_soft)}`);
    if (k !== "stage-wise") others.push(`violating rounds = ${c.violation_count}`);
    const card = f(`${c.name} (${k}): ${KIND[k].figure}`, fmt(c.violation),
      `g = ${c.name} − ${fmt(c.threshold)} per round; ${KIND[k].say}. Also: ${others.join(" · ")}`, "violation");
    card.id = "violation-" + j;
    out.push(card);
  });
  return el("div", { class: "facts", id: "facts" }, ...out);
}

function explainViolation(spec) {
  const cons = spec.constraints || [];
  if (!cons.length) return null;
  const kinds = [...new Set(cons.map(kindOf))];
  return el("p", { class: "muted explain", id: "violation-help" },
    "Each round, g = metric − limit (≤ 0 keeps the limit). ",
    "cumulative Σ [g]⁺ adds each round's excess; long-term [Σ g]⁺ is the excess of the sum, where rounds under the limit make up for rounds over it; ",
    "stage-wise counts the rounds over the limit. A constraint's card shows the figure of its kind (",
    kinds.map((k) => `${k}: ${KIND[k] ? KIND[k].figure : k}`).join("; "), "); the violation charts draw both sums.");
}

function cell(v, cls) { // a number as shown, with the exact value as its tooltip
  const td = el("td", { class: cls || "num", text: fmt(v) });
  if (typeof v === "number") td.title = String(v);
  return td;
}

function table(study, m) {
  const spec = study.spec;
  const cons = spec.constraints || [];
  const pnames = (spec.parameters || []).map((p) => p.name);
  const head = ["decision", "round", ...(pnames.length ? pnames : ["x"]), spec.objective.name, ...cons.map((c) => c.name), "status", "created"];
  const rows = m.rows.slice(-TABLE_ROWS).reverse().map((r) => {
    const d = r.d;
    const where = pnames.length ? pnames.map((n) => cell(d.params ? d.params[n] : "", typeof (d.params || {})[n] === "number" ? "num" : "")) : [el("td", { text: "[" + (d.x || []).map(fmt).join(", ") + "]" })];
    return el("tr", { class: d.abandoned ? "abandoned" : d.failed ? "failed" : r.violated ? "violated" : "", "data-id": String(d.decision_id) },
      el("td", { class: "num", text: String(d.decision_id) }), el("td", { class: "num", text: String(d.round) }), ...where,
      cell(d.reward), ...cons.map((c, j) => cell(d.costs ? d.costs[j] : null)),
      el("td", { text: r.status + (r.violated ? " (infeasible)" : "") }), el("td", { text: new Date(d.created).toLocaleTimeString() }));
  });
  return el("table", { id: "decisions" }, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { text: h })))), el("tbody", {}, ...rows));
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
  const m = location.hash.match(/^#\/study\/([^/]+)(?:\/(parameters))?$/);
  try {
    if (m) await studyPage(decodeURIComponent(m[1]), m[2] || "rounds", generation);
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
      el("td", { text: (s.spec.constraints || []).map((c) => `${c.name} ≤ ${fmt(c.threshold)} (${kindOf(c)})`).join(", ") }),
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

function complete(d, m) {
  return d.abandoned || d.failed || (d.reward != null && (m === 0 || (d.costs && d.costs.length === m)));
}

// decisionsOf reads the study's decisions; on a refresh only from the first
// one not yet complete (earlier ones no longer change).
async function decisionsOf(id, m) {
  let decs = cache && cache.id === id ? cache.decs : [];
  let after = decs.findIndex((d) => !complete(d, m));
  if (after < 0) after = decs.length;
  decs = decs.slice(0, after);
  for (;;) {
    const page = await api(`/studies/${encodeURIComponent(id)}/decisions?limit=${PAGE}&after=${after}`);
    decs = decs.concat(page.decisions || []);
    if (!page.next || decs.length >= MAX_DECISIONS) break;
    after = page.next;
  }
  cache = { id, decs };
  return decs;
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

let impCache = null; // {id, observed, imp}: the importance is fitted again only when observations arrive

// importanceOf reads GET /studies/{id}/importance, or its refusal (too few
// observations, a flat objective) as {error}.
async function importanceOf(id, observed) {
  if (impCache && impCache.id === id && impCache.observed === observed) return impCache.imp;
  let imp;
  try {
    imp = await api(`/studies/${encodeURIComponent(id)}/importance`);
  } catch (err) {
    if (err instanceof AuthError) throw err;
    imp = { error: String(err.message || err) };
  }
  impCache = { id, observed, imp };
  return imp;
}

// importanceView: one bar per parameter, its share of the variance of the
// objective's fitted model that its main effect explains (functional
// ANOVA of a GP's posterior mean, Hutter et al. 2014; the API's method).
function importanceView(imp) {
  if (imp.error) return [el("p", { class: "muted", id: "importance-note", text: "No importance yet: " + imp.error }), null];
  const ps = imp.parameters || [];
  const rowH = 22, T = 30, W = 560, R = 64;
  const L = Math.ceil(Math.max(40, ...ps.map((p) => textWidth(p.parameter)))) + 14;
  const H = T + rowH * ps.length + 8;
  const root = svg("svg", { id: "importance", class: "chart", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "parameter importance" });
  root.append(svg("text", { x: 8, y: 17, class: "title" }, `parameter importance (${imp.method}, ${imp.observations} observations)`));
  const bw = W - L - R;
  ps.forEach((p, i) => {
    const y = T + i * rowH;
    const g = svg("g", { class: "imp", "data-parameter": p.parameter });
    g.append(svg("text", { x: L - 6, y: y + 14, "text-anchor": "end", class: "imp-name" }, p.parameter));
    const bar = svg("rect", { x: L, y: y + 3, width: Math.max(1, p.importance * bw).toFixed(2), height: rowH - 6, rx: 2, fill: C.objective, class: "bar" });
    bar.append(svg("title", {}, `${p.parameter}: importance ${fmt(p.importance)}; alone it explains ${fmt(p.first_order)} of the model's variance`));
    g.append(bar);
    g.append(svg("text", { x: L + Math.max(1, p.importance * bw) + 6, y: y + 14, class: "imp-value" }, p.importance.toFixed(3)));
    root.append(g);
  });
  const note = el("p", { class: "muted explain", id: "importance-note" },
    `How much of the objective's variation each parameter explains: a Gaussian process with one lengthscale per parameter is fitted to the ${imp.observations} evaluated configurations, `,
    "and each parameter's share of the variance of its prediction that the parameter explains alone (its main effect: functional ANOVA, Hutter, Hoos & Leyton-Brown 2014) is shown, the shares scaled to sum to 1. ",
    `Alone, the parameters explain ${fmt(Math.round(imp.explained * 1000) / 10)} % of the variance; the rest comes from their interactions. Failed and pending evaluations have no value and are left out.`);
  return [note, root];
}

async function studyPage(id, view, gen) {
  const [study, sum] = await Promise.all([api(`/studies/${encodeURIComponent(id)}`), api(`/studies/${encodeURIComponent(id)}/summary`)]);
  const decs = await decisionsOf(id, (study.spec.constraints || []).length);
  if (gen !== generation) return;
  const spec = study.spec;
  const m = model(study, decs);
  const desc = [spec.algorithm, (spec.evaluations || "live") + " evaluations", "seed " + spec.seed, spec.horizon ? "horizon " + spec.horizon : "open-ended",
    spec.parameters ? spec.parameters.map((p) => p.type === "categorical" ? `${p.name} ∈ {${p.choices.join(", ")}}` : `${p.name} ∈ [${fmt(p.low)}, ${fmt(p.high)}] ${p.type}${p.log ? " log" : ""}`).join("; ") :
      spec.space.type + " space"].join(" · ");
  const base = "#/study/" + encodeURIComponent(id);
  const tabs = el("nav", { class: "tabs" },
    el("a", { href: base, class: view === "rounds" ? "active" : "", id: "tab-rounds", text: "Rounds" }),
    el("a", { href: base + "/parameters", class: view === "parameters" ? "active" : "", id: "tab-parameters", text: "Parameters (slices, parallel coordinates)" }));
  let body;
  if (view === "parameters") {
    const sl = sliceCharts(study, m, decs);
    const note = `Each metric against each parameter: ${sl.shown} observed decisions${sl.shown >= MAX_PARAM_POINTS ? " (the latest " + MAX_PARAM_POINTS + ")" : ""}; red rings break a limit (on the objective's row: some limit)` +
      (sl.failed ? `; ${sl.failed} failed evaluations as × at their parameter values on each plot's bottom edge (no value).` : ".");
    const legend = svg("svg", { class: "legend", width: 760, height: 24 });
    legendItems(legend, [{ name: "within every limit", color: C.objective }, { name: "over a limit", color: C.infeasible, shape: "ring" },
      { name: "limit", color: C.threshold, shape: "dash" }, ...(sl.failed ? [{ name: "failed (no value)", color: C.failed, shape: "cross" }] : [])], 4, 16, 756);
    const grid = el("div", { class: "slices", id: "slices" }, ...sl.charts);
    grid.classList.add("cols-" + Math.min(sl.columns, 4));
    const imp = await importanceOf(id, sum.reward_observed);
    if (gen !== generation) return;
    body = [el("h2", { text: "Which parameters matter" }), ...importanceView(imp),
      el("h2", { text: "Slices" }), el("p", { class: "muted", text: note }), legend, grid,
      el("h2", { text: "Parallel coordinates" }), el("div", { class: "scroll" }, parallelChart(study, m, decs))];
  } else {
    const dots = m.rows.filter((r) => r.d.reward != null).length;
    body = [el("div", { class: "charts" }, ...historyCharts(study, m)),
      dots > MAX_DOTS ? el("p", { class: "muted", text: `The charts show the latest ${MAX_DOTS} of ${dots} observed rounds.` }) : null,
      el("h2", { text: `Decisions (latest ${Math.min(decs.length, TABLE_ROWS)} of ${decs.length})` },
        " ", el("button", { id: "csv", onclick: () => downloadCSV(id, spec.name), text: "download CSV" })),
      table(study, m)];
  }
  const y = window.scrollY;
  document.getElementById("main").replaceChildren(...[
    el("p", {}, el("a", { href: "#/", text: "← studies" })),
    el("h1", { id: "study-name", text: spec.name }),
    el("p", { class: "muted", text: desc + " · " + study.id }),
    facts(study, sum, m), explainViolation(spec), tabs, ...body].filter((x) => x != null));
  window.scrollTo(0, y);
  setStatus(`${spec.name}: ${sum.rounds} rounds · refreshed ${new Date().toLocaleTimeString()}`);
  timer = setTimeout(() => {
    if (gen !== generation) return;
    if (document.hidden) { timer = setTimeout(() => route(), REFRESH_MS); return; }
    studyPage(id, view, gen).catch((err) => setStatus("refresh failed: " + (err.message || err)));
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
