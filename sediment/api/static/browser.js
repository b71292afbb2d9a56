// Sediment memory browser: pick a bank, search it, and read each result's state, its
// supersession chain (old -> new, with times and the reason in words), an observation's
// source memories and how its text reads. No build step, no library. It reads only the
// API: v1/browse/banks, v1/banks/{bank}/recall, v1/banks/{bank}/memories/{id} and its
// /reading. Text from the store is written with textContent only (never as HTML). A
// token, when the API needs one, is kept in this tab's sessionStorage (the dashboard's).
"use strict";

(() => {
  const TOKEN_KEY = "sediment.token";
  const MAX_HOPS = 5;
  const $ = (id) => document.getElementById(id);
  const page = { searches: 0, details: 0 };

  class Unauthorized extends Error {}

  async function api(path, body) {
    const token = sessionStorage.getItem(TOKEN_KEY);
    const headers = token ? { Authorization: "Bearer " + token } : {};
    const init = { headers, cache: "no-store" };
    if (body !== undefined) {
      init.method = "POST";
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    if (response.status === 401) throw new Unauthorized();
    if (!response.ok) {
      let said = "";
      try {
        const b = await response.json();
        said = b.message || (b.detail || []).map((d) => d.msg || JSON.stringify(d)).join("; ");
      } catch (e) { /* not JSON */ }
      throw new Error("HTTP " + response.status + (said ? ": " + said : ""));
    }
    return response.json();
  }
  const bankPath = (bank) => "v1/banks/" + encodeURIComponent(bank);

  // ---- small DOM helpers (text only) ------------------------------------------------
  function node(tag, attrs = {}, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") el.className = v; else el.setAttribute(k, v);
    }
    for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return el;
  }
  const short = (id) => String(id).slice(0, 6);
  function when(iso) {
    const d = new Date(iso);
    return isNaN(d) ? String(iso) : d.toISOString().replace("T", " ").replace(/:\d\d\.\d+Z$|:\d\dZ$/, " UTC");
  }
  const badge = (text, cls) => node("span", { class: "badge " + (cls || text) }, text);

  function setState(state, text) {
    document.body.dataset.state = state;
    $("status").textContent = text;
  }
  function showAuth(message) {
    $("auth").hidden = false;
    $("auth-note").textContent = message;
    setState("unauthorized", "token needed");
    $("token").focus();
  }
  function failed(e, what) {
    if (e instanceof Unauthorized) {
      showAuth(sessionStorage.getItem(TOKEN_KEY)
        ? "The token was refused: enter SEDIMENT_API_TOKEN or an API key again."
        : "This API needs a token (SEDIMENT_API_TOKEN or an API key).");
    } else {
      setState("error", what + ": " + e.message);
    }
  }

  // ---- in words ---------------------------------------------------------------------
  // How a newer state replaced an older one, as `sediment inspect` says it.
  function replacedHow(record) {
    if (record.relation === "INVALIDATED_BY") return "invalidated by the next: no longer true";
    return "replaced by the next: a newer state of the same thing";
  }
  function why(older) {
    const how = replacedHow(older);
    return older.supersession_reason ? how + "; why: " + older.supersession_reason : how;
  }

  // ---- banks ------------------------------------------------------------------------
  async function loadBanks() {
    const wanted = new URLSearchParams(location.search).get("bank") || $("bank").value;
    const { banks } = await api("v1/browse/banks");
    const select = $("bank");
    select.replaceChildren(...banks.map((b) => node("option", { value: b }, b)));
    if (banks.includes(wanted)) select.value = wanted;
    document.body.dataset.banks = String(banks.length);
    $("auth").hidden = true;
    $("forget-header").hidden = !sessionStorage.getItem(TOKEN_KEY);
    if (!banks.length) {
      setState("empty", "no bank holds memories yet");
      return false;
    }
    setState("ready", banks.length + (banks.length === 1 ? " bank" : " banks"));
    return true;
  }

  // ---- one result -------------------------------------------------------------------
  const views = new Map();
  async function view(bank, id) {
    const key = bank + "/" + id;
    if (!views.has(key)) views.set(key, api(bankPath(bank) + "/memories/" + id));
    return views.get(key);
  }

  // The chains through a memory, oldest first: for each memory it replaced, that one
  // and what it had replaced in turn (at most MAX_HOPS back), then this memory and the
  // newer states the view lists. A memory that replaced none has one chain when newer
  // states replaced it, else none. The chain through the state a recall showed it for
  // (`state_replaces`) comes first.
  async function chainsOf(bank, shown, replaces) {
    const self = { ...shown.memory, this: true };
    const newer = shown.history;
    const starts = shown.edges.supersedes;
    if (!starts.length) return newer.length ? [[self, ...newer]] : [];
    const chains = [];
    for (const first of starts) {
      const older = [first];
      const seen = new Set([shown.memory.id, first.id]);
      while (older.length < MAX_HOPS) {
        let before;
        try { before = await view(bank, older[0].id); } catch (e) { break; }
        const prev = before.edges.supersedes[0];
        if (!prev || seen.has(prev.id)) break;
        seen.add(prev.id);
        older.unshift(prev);
      }
      chains.push([...older, self, ...newer]);
    }
    const through = (chain) => chain.some((step) => step.id === replaces);
    return chains.sort((a, b) => through(b) - through(a));
  }

  function chainList(chain) {
    const list = node("ol", { class: "chain" });
    chain.forEach((step, i) => {
      const item = node("li", { class: "step" + (step.this ? " this" : ""), "data-id": step.id },
        badge(step.state), " ", node("span", { class: "mono" }, short(step.id) + " " + when(step.occurred_at)),
        " ", step.text);
      list.append(item);
      if (i < chain.length - 1) list.append(node("li", { class: "why" }, why(step)));
    });
    return list;
  }

  function chainPart(chains) {
    const title = chains.length > 1
      ? "supersession chains (old \u2192 new): it replaced " + chains.length + " memories"
      : "supersession chain (old \u2192 new)";
    return part(title, node("div", {}, ...chains.map(chainList)), "chain");
  }

  function part(title, body, name) {
    return node("div", { class: "part", "data-part": name }, node("h3", {}, title), body);
  }

  async function details(bank, result, card) {
    const slot = card.querySelector(".details");
    try {
      const [shown, reading] = await Promise.all([
        view(bank, result.id),
        api(bankPath(bank) + "/memories/" + result.id + "/reading"),
      ]);
      const parts = [];
      const chains = await chainsOf(bank, shown, result.state_replaces);
      if (chains.length) parts.push(chainPart(chains));
      const m = shown.memory;
      if (m.kind === "observation") {
        const sources = node("ul", {}, ...shown.sources.map((s) => node("li", { "data-id": s.id },
          node("span", { class: "mono" }, short(s.id) + " " + when(s.occurred_at) + " "),
          badge(s.state), " ", s.text)));
        parts.push(part("drawn from " + shown.sources.length + " source memories", sources, "sources"));
      }
      if (m.observation_id) {
        const joined = node("li", { "data-id": m.observation_id }, "merged into observation " + short(m.observation_id));
        parts.push(part("observation", node("ul", {}, joined), "merged"));
      }
      parts.push(part("reading", node("ul", {}, ...reading.lines.map((l) => node("li", {}, l))), "reading"));
      slot.replaceChildren(...parts);
      card.dataset.loaded = "true";
    } catch (e) {
      slot.replaceChildren(node("p", { class: "error" }, "details: " + e.message));
      card.dataset.loaded = "error";
      if (e instanceof Unauthorized) failed(e, "details");
    }
    page.details += 1;
    document.body.dataset.details = String(page.details);
  }

  function card(result, rank) {
    const head = node("div", { class: "head" },
      node("span", {}, "#" + rank), node("span", { class: "id", title: result.id }, short(result.id)),
      badge(result.kind, result.kind === "observation" ? "observation" : "kind"),
      badge(result.state), node("span", {}, "score " + result.score.toFixed(3)),
      node("span", {}, when(result.occurred_at)));
    const note = (text) => head.append(node("span", {}, text));
    if (result.state_replaces) note("shown for " + short(result.state_replaces) + ", a state it replaced");
    if (result.superseded_by) note("superseded by " + short(result.superseded_by));
    if (result.outdated_by) note("a newer value in " + short(result.outdated_by));
    return node("li", { class: "result", "data-id": result.id, "data-state": result.state, "data-kind": result.kind },
      head, node("div", { class: "text" }, result.text), node("div", { class: "details" }, "loading details\u2026"));
  }

  // ---- search -----------------------------------------------------------------------
  async function search() {
    const bank = $("bank").value;
    const query = $("query").value.trim();
    if (!bank) return;
    if (!query) {
      setState("ready", "type a query to search bank " + bank);
      return;
    }
    const params = new URLSearchParams({ bank, q: query });
    if ($("history").checked) params.set("history", "1");
    history.replaceState(null, "", "?" + params);
    setState("searching", "searching " + bank);
    let answer;
    try {
      answer = await api(bankPath(bank) + "/recall", {
        query, limit: Number($("limit").value), history: $("history").checked,
      });
    } catch (e) {
      return failed(e, "recall");
    }
    views.clear();
    page.details = 0;
    document.body.dataset.details = "0";
    const cards = answer.results.map((r, i) => card(r, i + 1));
    $("results").replaceChildren(...cards);
    const pending = answer.pending ? ", " + answer.pending + " events still pending" : "";
    const low = answer.low_confidence ? " (low confidence: no result has strong evidence)" : "";
    const left = answer.without_evidence
      ? ", " + answer.without_evidence + " without topical evidence left out"
      : "";
    $("summary").textContent =
      answer.results.length + " results in bank " + bank + pending + left + low;
    page.searches += 1;
    document.body.dataset.results = String(answer.results.length);
    document.body.dataset.searches = String(page.searches);
    setState("ok", answer.results.length + " results");
    await Promise.all(answer.results.map((r, i) => details(bank, r, cards[i])));
  }

  async function begin() {
    try {
      if (await loadBanks()) await search();
    } catch (e) {
      failed(e, "banks");
    }
  }

  function start() {
    const given = new URLSearchParams(location.search);
    if (given.get("q")) $("query").value = given.get("q");
    $("history").checked = given.get("history") === "1";
    $("token-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const value = $("token").value.trim();
      if (value) sessionStorage.setItem(TOKEN_KEY, value);
      $("token").value = "";
      begin();
    });
    for (const id of ["forget", "forget-header"]) {
      $(id).addEventListener("click", () => {
        sessionStorage.removeItem(TOKEN_KEY);
        $("forget-header").hidden = true;
        showAuth("Token forgotten.");
      });
    }
    $("search").addEventListener("submit", (e) => { e.preventDefault(); search(); });
    $("bank").addEventListener("change", () => search());
    begin();
  }
  start();
})();
