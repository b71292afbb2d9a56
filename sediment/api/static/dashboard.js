// Sediment dashboard: polls v1/stats and draws it. No build step, no library: charts are
// plain SVG drawn here. Figures are written with textContent only (never as HTML), and
// each keeps its exact value in data-value, so what is shown can be checked against
// the API. A token, when the API needs one, is kept in this tab's sessionStorage.
"use strict";

(() => {
  const TOKEN_KEY = "sediment.token";
  const POLL_MS = 5000;
  const GAUGE_HISTORY = 120;
  const COLORS = ["#2f6fde", "#1a9e5c", "#d9822b", "#c23b3b", "#7b4fc9"];
  const SVG = "http://www.w3.org/2000/svg";
  const W = 560, H = 200, LEFT = 52, RIGHT = 10, TOP = 24, BOTTOM = 24;
  const page = { timer: null, updates: 0, backlog: [], scope: "" };
  const $ = (id) => document.getElementById(id);

  // ---- reading the snapshot -------------------------------------------------------
  const matches = (labels, wanted) => Object.entries(wanted).every(([k, v]) => labels[k] === v);
  const sameLabels = (labels, wanted) =>
    Object.keys(labels).length === Object.keys(wanted).length && matches(labels, wanted);
  const counters = (s, name, wanted = {}) =>
    s.counters.filter((c) => c.name === name && matches(c.labels, wanted));
  const total = (s, name, wanted) => counters(s, name, wanted).reduce((a, c) => a + c.total, 0);
  const rate = (s, name, wanted) => counters(s, name, wanted).reduce((a, c) => a + c.per_minute, 0);
  function series(s, name, wanted) {
    const out = new Array(s.minutes).fill(0);
    for (const c of counters(s, name, wanted)) c.series.forEach((v, i) => { out[i] += v; });
    return out;
  }
  const latency = (s, name, wanted = {}) =>
    s.latencies.find((h) => h.name === name && sameLabels(h.labels, wanted)) || null;
  function gauge(s, name) {
    const found = s.gauges.filter((g) => g.name === name);
    return found.length ? found.reduce((a, g) => a + g.value, 0) : null;
  }

  // ---- formatting -----------------------------------------------------------------
  function fmtMs(v) {
    if (v === null || v === undefined) return "-";
    if (v < 10) return v.toFixed(2) + " ms";
    if (v < 1000) return v.toFixed(0) + " ms";
    if (v < 60000) return (v / 1000).toFixed(1) + " s";
    if (v < 3600000) return (v / 60000).toFixed(1) + " min";
    return (v / 3600000).toFixed(1) + " h";
  }
  const fmtCount = (v) => (v === null || v === undefined ? "-" : Math.round(v).toLocaleString("en"));
  const fmtRate = (v) => v.toFixed(1) + " / min";

  function figure(id, value, format = fmtCount) {
    const el = $(id);
    el.dataset.value = value === null || value === undefined ? "" : String(value);
    el.textContent = format(value);
  }
  const note = (id, text) => { $(id).textContent = text; };

  // ---- charts ---------------------------------------------------------------------
  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }
  // A y scale of at most 4 steps of 1, 2, 2.5 or 5 times a power of ten (whole
  // steps for counts), so tick labels are round and never repeat.
  function scale(max, whole) {
    const raw = Math.max(max, 1) / 4;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const steps = [1, 2, 2.5, 5, 10].map((m) => m * power).filter((v) => !whole || Number.isInteger(v));
    const step = Math.max(whole ? 1 : 0, steps.find((v) => v >= raw) || 10 * power);
    return { step, top: step * Math.max(1, Math.ceil(max / step)) };
  }
  const tick = (v, unit) => (unit === "ms" ? fmtMs(v).replace(" ", "") : fmtCount(v));

  // lines: [{name, values: [number|null]}]; xLabels: one per value
  function drawChart(svg, lines, xLabels, unit) {
    svg.replaceChildren();
    const n = xLabels.length;
    const all = lines.flatMap((l) => l.values.filter((v) => v !== null));
    const { step, top } = scale(Math.max(0, ...all), unit !== "ms");
    const x = (i) => LEFT + (n <= 1 ? (W - LEFT - RIGHT) / 2 : (i * (W - LEFT - RIGHT)) / (n - 1));
    const y = (v) => TOP + (H - TOP - BOTTOM) * (1 - v / top);
    for (let v = 0; v <= top + step / 2; v += step) {
      svg.append(el("line", { class: "grid", x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v) }));
      svg.append(el("text", { x: LEFT - 6, y: y(v) + 4, "text-anchor": "end" }, tick(v, unit)));
    }
    const every = Math.max(1, Math.ceil(n / 6));
    xLabels.forEach((label, i) => {
      const last = i === n - 1;
      if ((i % every === 0 && n - 1 - i >= every / 2) || last) {
        const anchor = last && n > 1 ? "end" : "middle";
        svg.append(el("text", { x: x(i), y: H - 6, "text-anchor": anchor }, label));
      }
    });
    let drawn = 0;
    lines.forEach((line, k) => {
      const color = COLORS[k % COLORS.length];
      let d = "", pen = false, points = 0, last = null;
      line.values.forEach((v, i) => {
        if (v === null) { pen = false; return; }
        d += (pen ? "L" : "M") + x(i).toFixed(1) + "," + y(v).toFixed(1);
        pen = true; points += 1; last = v;
      });
      const path = el("path", { class: "line", d: d || "M0,0", stroke: color });
      if (k % 2 === 1) path.setAttribute("stroke-dasharray", "6 4");
      path.dataset.name = line.name;
      path.dataset.points = String(points);
      path.dataset.last = last === null ? "" : String(last);
      svg.append(path);
      if (points === 1) {
        const i = line.values.findIndex((v) => v !== null);
        svg.append(el("circle", { cx: x(i), cy: y(line.values[i]), r: 3, fill: color }));
      }
      const lx = LEFT + 8 + k * 100;
      svg.append(el("rect", { x: lx, y: 6, width: 10, height: 10, fill: color }));
      svg.append(el("text", { x: lx + 14, y: 15 }, line.name));
      drawn += points;
    });
    if (drawn === 0) {
      svg.append(el("text", { class: "empty", x: W / 2, y: H / 2, "text-anchor": "middle" },
        "no data in this window"));
    }
    svg.dataset.points = String(drawn);
  }

  function minuteLabels(s) {
    const at = new Date(s.at);
    const labels = [];
    for (let i = 0; i < s.minutes; i++) {
      const t = new Date(at.getTime() - (s.minutes - 1 - i) * 60000);
      labels.push(t.toTimeString().slice(0, 5));
    }
    return labels;
  }
  const pick = (h, key, n) => (h ? h[key] : new Array(n).fill(null));

  function drawCharts(s) {
    const labels = minuteLabels(s);
    const n = labels.length;
    const outcomes = ["received", "stored", "redelivered", "merged", "dead_lettered"];
    drawChart($("chart-retain"),
      outcomes.map((o) => ({ name: o.replace("_", " "), values: series(s, "events", { outcome: o }) })),
      labels, "count");
    drawChart($("chart-recall"), [
      { name: "recalls", values: series(s, "recalls", {}) },
      { name: "errors", values: series(s, "recall_errors", {}) },
    ], labels, "count");
    const recall = latency(s, "recall_ms");
    drawChart($("chart-latency"), ["p50", "p95", "p99"].map((p) => (
      { name: p, values: pick(recall, p + "_series", n) })), labels, "ms");
    const lag = latency(s, "consolidation_lag_ms", { since: "published" });
    const work = latency(s, "consolidation_ms");
    drawChart($("chart-lag"), [
      { name: "lag p50", values: pick(lag, "p50_series", n) },
      { name: "lag p95", values: pick(lag, "p95_series", n) },
      { name: "consolidation p95", values: pick(work, "p95_series", n) },
    ], labels, "ms");
    drawBacklog(s);
  }

  function drawBacklog(s) {
    const scope = s.bank || "";
    if (scope !== page.scope) { page.backlog = []; page.scope = scope; }
    page.backlog.push({
      at: new Date(s.at).toTimeString().slice(0, 8),
      ready: gauge(s, "queue_ready"), unacked: gauge(s, "queue_unacked"), dead: gauge(s, "dead_letters"),
    });
    page.backlog = page.backlog.slice(-GAUGE_HISTORY);
    const b = page.backlog;
    drawChart($("chart-backlog"), [
      { name: "queue ready", values: b.map((p) => p.ready) },
      { name: "unacked", values: b.map((p) => p.unacked) },
      { name: "dead letters", values: b.map((p) => p.dead) },
    ], b.map((p) => p.at), "count");
  }

  // ---- figures and the slow-call table --------------------------------------------
  function drawFigures(s) {
    figure("events-received", total(s, "events", { outcome: "received" }));
    note("events-received-rate", fmtRate(rate(s, "events", { outcome: "received" })));
    figure("events-stored", total(s, "events", { outcome: "stored" }));
    note("events-merged", total(s, "events", { outcome: "merged" }) + " merged, " +
      total(s, "events", { outcome: "superseded" }) + " superseded, " +
      total(s, "events", { outcome: "redelivered" }) + " redelivered");
    figure("recalls", total(s, "recalls", {}));
    note("recalls-rate", fmtRate(rate(s, "recalls", {})));
    figure("recall-errors", total(s, "recall_errors", {}));
    const recall = latency(s, "recall_ms");
    for (const p of ["p50", "p95", "p99"]) figure("recall-" + p, recall ? recall[p + "_ms"] : null, fmtMs);
    figure("recall-count", recall ? recall.count : 0, (v) => fmtCount(v) + " timed");
    const lag = latency(s, "consolidation_lag_ms", { since: "published" });
    figure("lag-p50", lag ? lag.p50_ms : null, fmtMs);
    figure("lag-p95", lag ? lag.p95_ms : null, fmtMs);
    figure("queue-ready", gauge(s, "queue_ready"));
    figure("queue-unacked", gauge(s, "queue_unacked"));
    figure("dead-letters", gauge(s, "dead_letters"));
    figure("events-dead-lettered", total(s, "events", { outcome: "dead_lettered" }),
      (v) => fmtCount(v) + " dead-lettered in window");
    figure("memories", gauge(s, "memories"));
    figure("observations", gauge(s, "observations"));
    note("banks", s.bank ? "bank " + s.bank : s.banks.length + " active banks");
    figure("slow-calls", s.slow_calls);
    const ages = s.gauges.map((g) => (new Date(s.at) - new Date(g.updated_at)) / 1000);
    note("gauge-age", ages.length ? "sampled " + Math.round(Math.max(...ages)) + " s ago" : "not sampled yet");
  }

  function drawSlow(s) {
    const body = $("slow-table").tBodies[0];
    body.replaceChildren();
    for (const call of s.recent_slow_calls.slice(0, 10)) {
      const stages = Object.entries(call.timings_ms || {}).sort((a, b) => b[1] - a[1]).slice(0, 3)
        .map(([k, v]) => k + " " + fmtMs(v)).join(", ");
      const sizes = Object.entries(call.sizes || {}).map(([k, v]) => k + "=" + v).join(" ");
      const row = body.insertRow();
      for (const text of [new Date(call.time).toTimeString().slice(0, 8), call.operation,
        call.bank || "-", fmtMs(call.duration_ms), stages || "-", sizes || "-"]) {
        row.insertCell().textContent = text;
      }
      row.dataset.durationMs = String(call.duration_ms);
    }
    if (!body.rows.length) body.insertRow().insertCell().textContent = "none";
  }

  // ---- polling and the token ------------------------------------------------------
  function setState(state, text) {
    document.body.dataset.state = state;
    note("status", text);
  }
  function schedule() {
    clearTimeout(page.timer);
    page.timer = setTimeout(poll, POLL_MS);
  }
  function showAuth(message) {
    $("auth").hidden = false;
    note("auth-note", message);
    $("token").focus();
  }

  async function poll() {
    const q = new URLSearchParams({ minutes: $("minutes").value, slow: "10" });
    const bank = $("bank").value.trim();
    if (bank) q.set("bank", bank);
    const token = sessionStorage.getItem(TOKEN_KEY);
    const headers = token ? { Authorization: "Bearer " + token } : {};
    let response;
    try {
      response = await fetch("v1/stats?" + q, { headers, cache: "no-store" });
    } catch (e) {
      setState("error", "cannot reach the API; retrying");
      return schedule();
    }
    if (response.status === 401) {
      setState("unauthorized", "token needed");
      return showAuth(token ? "The token was refused: enter SEDIMENT_API_TOKEN again." :
        "This API needs a token (SEDIMENT_API_TOKEN).");
    }
    if (!response.ok) {
      setState("error", "v1/stats answered HTTP " + response.status + "; retrying");
      return schedule();
    }
    const stats = await response.json();
    $("auth").hidden = !token;
    if (token) note("auth-note", "Using the token kept in this tab.");
    drawFigures(stats);
    drawCharts(stats);
    drawSlow(stats);
    page.updates += 1;
    document.body.dataset.updates = String(page.updates);
    document.body.dataset.at = stats.at;
    setState("ok", "updated " + new Date(stats.at).toTimeString().slice(0, 8) + ", every " + POLL_MS / 1000 + " s");
    schedule();
  }

  function start() {
    $("token-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const value = $("token").value.trim();
      if (value) sessionStorage.setItem(TOKEN_KEY, value);
      $("token").value = "";
      poll();
    });
    $("forget").addEventListener("click", () => {
      sessionStorage.removeItem(TOKEN_KEY);
      showAuth("Token forgotten.");
      poll();
    });
    $("controls").addEventListener("submit", (e) => { e.preventDefault(); poll(); });
    $("minutes").addEventListener("change", () => { page.backlog = []; poll(); });
    $("bank").addEventListener("change", () => poll());
    poll();
  }
  start();
})();
