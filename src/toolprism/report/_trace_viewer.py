"""The trace viewer's script and style (our own code: no data is ever put in them).

The script reads the index the page embeds for the ``traces`` section (``#data-traces``) and the
chunks of :mod:`toolprism.report._traces`, decodes them with ``DecompressionStream`` (a chunk only
when one of its episodes is opened), and builds every element with ``createElement`` and
``textContent``: no ``innerHTML``, no attribute or URL taken from data, so a model's output or a
tool's return is always shown as text. Its state (filters, free-text search, page, opened
episode) lives in the URL hash, ``#traces?variant=native&outcome=failure&episode=<id>``.
"""

VIEWER_CSS = """
#trace-viewer { --tv-ok: #1a7f37; --tv-bad: #c0362c; --tv-muted: #6b7280; --tv-line: #d9dde3;
  --tv-inj: #fff4c2; --tv-inj-line: #d4a106; font-size: 14px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
#trace-viewer .tv-filters { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: end; margin: 8px 0 10px; }
#trace-viewer .tv-filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--tv-muted); }
#trace-viewer .tv-filters select, #trace-viewer .tv-filters input { font: inherit; padding: 3px 4px;
  min-width: 9em; max-width: 16em; }
#trace-viewer .tv-filters button { font: inherit; padding: 3px 10px; }
#trace-viewer .tv-filters label.tv-check { flex-direction: row; align-items: center; gap: 4px; padding-bottom: 5px; }
#trace-viewer .tv-filters label.tv-check input { min-width: 0; }
#trace-viewer .tv-status { margin: 4px 0 8px; color: var(--tv-muted); }
#trace-viewer .tv-body { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
#trace-viewer .tv-list { flex: 1 1 520px; min-width: 0; }
#trace-viewer .tv-detail { flex: 1.4 1 620px; min-width: 0; border: 1px solid var(--tv-line); border-radius: 6px;
  padding: 10px 14px; background: #fff; }
#trace-viewer table { border-collapse: collapse; width: 100%; }
#trace-viewer th, #trace-viewer td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--tv-line);
  vertical-align: top; }
#trace-viewer .tv-list th { font-size: 12px; color: var(--tv-muted); font-weight: 600; }
#trace-viewer .tv-list tbody tr { cursor: pointer; }
#trace-viewer .tv-list tbody tr:hover { background: #f3f6fa; }
#trace-viewer .tv-list tbody tr.tv-selected { background: #e3ecfa; }
#trace-viewer .tv-id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px;
  overflow-wrap: break-word; }
#trace-viewer .tv-pager { display: flex; gap: 10px; align-items: center; margin: 8px 0; }
#trace-viewer .tv-chip { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 12px;
  line-height: 18px; background: #eef0f3; color: #333; margin-right: 4px; white-space: nowrap; }
#trace-viewer .tv-chip.tv-success, #trace-viewer .tv-chip.tv-pass, #trace-viewer .tv-chip.tv-executed {
  background: #dcf3e3; color: var(--tv-ok); }
#trace-viewer .tv-chip.tv-failure, #trace-viewer .tv-chip.tv-fail, #trace-viewer .tv-chip.tv-rejected,
#trace-viewer .tv-chip.tv-failed { background: #fbe3e1; color: var(--tv-bad); }
#trace-viewer .tv-chip.tv-injection { background: var(--tv-inj); color: #6b5200; border: 1px solid var(--tv-inj-line); }
#trace-viewer h3 { margin: 2px 0 8px; font-size: 15px; overflow-wrap: anywhere; }
#trace-viewer h4 { margin: 14px 0 6px; font-size: 13px; text-transform: uppercase; letter-spacing: .04em;
  color: var(--tv-muted); }
#trace-viewer dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; }
#trace-viewer dt { color: var(--tv-muted); }
#trace-viewer dd { margin: 0; overflow-wrap: anywhere; }
#trace-viewer pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 2px 0; padding: 6px 8px;
  background: #f6f8fa; border-radius: 4px; font-size: 12px; max-height: 28em; overflow: auto; }
#trace-viewer .tv-msg { border-left: 3px solid #c9ced6; padding: 2px 0 2px 10px; margin: 8px 0; }
#trace-viewer .tv-msg.tv-role-system { border-color: #8b95a5; }
#trace-viewer .tv-msg.tv-role-user { border-color: #3b6fd8; }
#trace-viewer .tv-msg.tv-role-assistant { border-color: #7b4bd1; }
#trace-viewer .tv-msg.tv-role-tool { border-color: #2f9e7a; }
#trace-viewer .tv-label { font-size: 12px; font-weight: 600; color: #374151; }
#trace-viewer .tv-turn { border: 1px solid #d8cff0; background: #faf8ff; border-radius: 6px; padding: 6px 10px;
  margin: 10px 0; }
#trace-viewer .tv-injected { background: var(--tv-inj); border-color: var(--tv-inj-line) !important;
  outline: 1px solid var(--tv-inj-line); }
#trace-viewer .tv-muted { color: var(--tv-muted); }
#trace-viewer .tv-empty { padding: 20px; color: var(--tv-muted); }
#trace-viewer details > summary { cursor: pointer; color: #374151; }
#trace-viewer .tv-calls td { font-size: 12px; }
#trace-viewer .tv-calls td:first-child, #trace-viewer .tv-calls td:last-child { width: 40%; }
"""

VIEWER_SCRIPT = r"""
(function () {
  "use strict";
  const OUTCOME_HASH = { "success": "success", "failure": "failure", "not scored": "unscored" };
  const LABELS = { run: "Run", model: "Model", domain: "Domain", variant: "Variant", condition: "Condition",
    outcome: "Outcome", mode: "Failure mode", error: "Primary error" };

  function node(tag, cls) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    for (let i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function add(parent, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { add(parent, c); }); return; }
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  function has(value) { return value !== null && value !== undefined; }
  function chip(text, kind) { return node("span", "tv-chip" + (kind ? " tv-" + kind : ""), text); }
  function breakable(text) {
    // the text with a line-break opportunity after each "/" (ids wrap at their parts, not mid-word)
    const parts = String(text).split("/"), out = [];
    parts.forEach(function (p, i) {
      out.push(i < parts.length - 1 ? p + "/" : p);
      if (i < parts.length - 1) out.push(node("wbr"));
    });
    return out;
  }
  function pre(value) {
    return node("pre", null, typeof value === "string" ? value : JSON.stringify(value, null, 1));
  }
  function call(op, args) { return op + "(" + (args && Object.keys(args).length ? JSON.stringify(args) : "") + ")"; }

  async function unpack(id) {
    const holder = document.getElementById(id);
    if (!holder) throw new Error("the report has no element " + id);
    const text = atob(holder.textContent.trim());
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function Viewer(root, index) {
    this.root = root;
    this.index = index;
    this.values = index.values;
    this.rows = index.rows;
    this.total = index.rows.task.length;
    this.chunks = new Map();
    this.state = this.emptyState();
    this.matches = [];
    this.selected = -1;
    this.haystack = null;
    this.generation = 0;
  }
  Viewer.prototype.emptyState = function () {
    const s = { q: "", deep: false, page: 0, episode: "", of: "" };
    this.index.filters.forEach(function (f) { s[f] = ""; });
    return s;
  };
  Viewer.prototype.episodeId = function (k) {
    const r = this.rows, v = this.values, cond = v.condition[r.condition[k]];
    return v.task[r.task[k]] + "@" + v.variant[r.variant[k]] + (cond ? "+" + cond : "") + "#" + r.seed[k];
  };
  Viewer.prototype.hashValue = function (f, value) {
    if (f === "outcome") return OUTCOME_HASH[value] || value;
    if (f === "condition" && value === "") return "clean";
    return value;
  };
  Viewer.prototype.code = function (f, text) {
    // the index of a filter's value as the hash writes it; -1 when no episode has it
    const vals = this.values[f];
    for (let i = 0; i < vals.length; i++) if (this.hashValue(f, vals[i]) === text) return i;
    return -1;
  };
  Viewer.prototype.readHash = function () {
    const h = location.hash;
    if (h.indexOf("#traces") !== 0) return false;
    const at = h.indexOf("?");
    const params = new URLSearchParams(at < 0 ? "" : h.slice(at + 1));
    const s = this.emptyState();
    this.index.filters.forEach(function (f) { s[f] = params.get(f) || ""; });
    s.q = params.get("q") || "";
    s.page = Math.max(0, (parseInt(params.get("page") || "1", 10) || 1) - 1);
    s.episode = params.get("episode") || "";
    s.of = params.get("of") || "";  // the episode's run, where several runs hold that episode id
    s.deep = params.get("text") === "1";
    this.state = s;
    return true;
  };
  Viewer.prototype.writeHash = function () {
    const p = new URLSearchParams(), s = this.state;
    this.index.filters.forEach(function (f) { if (s[f]) p.set(f, s[f]); });
    if (s.q) p.set("q", s.q);
    if (s.deep) p.set("text", "1");
    if (s.page > 0) p.set("page", String(s.page + 1));
    if (s.episode) p.set("episode", s.episode);
    if (s.episode && s.of) p.set("of", s.of);
    const text = p.toString();
    history.replaceState(null, "", "#traces" + (text ? "?" + text : ""));
  };

  Viewer.prototype.filter = function () {
    const s = this.state, rows = this.rows, wanted = [];
    const self = this;
    this.index.filters.forEach(function (f) { if (s[f]) wanted.push([rows[f], self.code(f, s[f])]); });
    const q = s.deep ? "" : s.q.trim().toLowerCase();  // a text search filters after (deepSearch)
    if (q && !this.haystack) {
      this.haystack = new Array(this.total);
      for (let k = 0; k < this.total; k++) {
        const parts = [this.episodeId(k)];
        this.index.filters.forEach(function (f) { parts.push(self.values[f][rows[f][k]]); });
        this.haystack[k] = parts.join(" ").toLowerCase();
      }
    }
    const out = [];
    outer: for (let k = 0; k < this.total; k++) {
      for (let j = 0; j < wanted.length; j++) if (wanted[j][0][k] !== wanted[j][1]) continue outer;
      if (q && this.haystack[k].indexOf(q) < 0) continue;
      out.push(k);
    }
    this.matches = out;
  };

  Viewer.prototype.build = function () {
    const self = this, rows = this.rows;
    this.controls = {};
    const bar = node("div", "tv-filters");
    this.index.filters.forEach(function (f) {
      const vals = self.values[f], counts = new Array(vals.length).fill(0);
      rows[f].forEach(function (i) { counts[i]++; });
      const select = node("select");
      select.name = f;
      const all = node("option", null, "all");
      all.value = "";
      select.appendChild(all);
      vals.forEach(function (v, i) {
        if (!counts[i] || ((f === "mode" || f === "error") && v === "")) return;
        const label = f === "condition" && v === "" ? "clean" : v;
        const o = node("option", null, label + " (" + counts[i].toLocaleString("en") + ")");
        o.value = self.hashValue(f, v);
        select.appendChild(o);
      });
      // a filter with one value filters nothing, except those whose value leaves the successes out
      if (select.options.length <= 2 && ["outcome", "variant", "mode", "error"].indexOf(f) < 0) return;
      if (select.options.length < 2) return;
      select.addEventListener("change", function () { self.state[f] = select.value; self.changed(); });
      self.controls[f] = select;
      bar.appendChild(node("label", null, LABELS[f] || f, select));
    });
    const search = node("input");
    search.type = "search";
    search.placeholder = "task, variant, mode…";
    let timer = 0;
    search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { self.state.q = search.value; self.changed(); }, 200);
    });
    this.controls.q = search;
    bar.appendChild(node("label", null, "Search", search));
    const deep = node("input");
    deep.type = "checkbox";
    deep.addEventListener("change", function () { self.state.deep = deep.checked; self.changed(); });
    this.deepBox = deep;
    bar.appendChild(node("label", "tv-check", deep, "in the traces' text (slower)"));
    const reset = node("button", null, "Clear filters");
    reset.type = "button";
    reset.addEventListener("click", function () { self.state = self.emptyState(); self.changed(); });
    bar.appendChild(reset);
    this.status = node("div", "tv-status");
    this.list = node("div", "tv-list");
    this.detail = node("div", "tv-detail", node("div", "tv-empty", "Select an episode in the list."));
    this.root.textContent = "";
    add(this.root, [bar, this.status, node("div", "tv-body", this.list, this.detail)]);
  };
  Viewer.prototype.syncControls = function () {
    const s = this.state, c = this.controls;
    Object.keys(c).forEach(function (f) { if (c[f].value !== s[f]) c[f].value = s[f]; });
    this.deepBox.checked = s.deep;
  };
  Viewer.prototype.changed = function () {
    this.state.page = 0;
    this.state.episode = this.state.of = "";
    this.update(true);
  };
  Viewer.prototype.update = function (write) {
    this.syncControls();
    this.filter();
    const token = ++this.generation, q = this.state.q.trim().toLowerCase();
    if (this.state.deep && q) {
      const self = this, s = this.state;
      const key = JSON.stringify(this.index.filters.map(function (f) { return s[f]; }).concat([q]));
      if (this.searched && this.searched.key === key) {  // turning a page does not search again
        this.matches = this.searched.found;
        this.show(write);
        return;
      }
      this.deepSearch(q, token).then(function (found) {
        if (token !== self.generation) return;
        self.searched = { key: key, found: found };
        self.matches = found;
        self.show(write);
      }).catch(function (e) { self.status.textContent = "The search failed: " + e; });
      return;
    }
    this.show(write);
  };
  Viewer.prototype.deepSearch = async function (q, token) {
    // the candidates whose trace holds q in any text (messages, outputs, calls, task): chunk by chunk,
    // keeping no chunk it did not already hold (50,000 decoded traces would not fit in memory)
    const per = this.index.chunk_episodes, found = [], candidates = this.matches;
    for (let at = 0; at < candidates.length;) {
      if (token !== this.generation) return found;
      const chunk = Math.floor(candidates[at] / per);
      this.status.textContent = "Searching the traces' text: " + at.toLocaleString("en") + " of " +
        candidates.length.toLocaleString("en") + " episodes…";
      const bodies = await (this.chunks.has(chunk) ? this.chunks.get(chunk) : unpack("traces-chunk-" + chunk));
      for (; at < candidates.length && Math.floor(candidates[at] / per) === chunk; at++) {
        const k = candidates[at];
        if (texts(bodies[k % per], []).join("\n").toLowerCase().indexOf(q) >= 0) found.push(k);
      }
    }
    return found;
  };
  Viewer.prototype.show = function (write) {
    const pages = Math.max(1, Math.ceil(this.matches.length / this.index.page_rows));
    if (this.state.page >= pages) this.state.page = pages - 1;
    let chosen = -1;
    if (this.state.episode) {
      const want = this.state.episode, of = this.state.of, runs = this.values.run, rows = this.rows;
      chosen = this.matches.find(function (k) {
        return this.episodeId(k) === want && (!of || runs[rows.run[k]] === of);
      }, this);
      if (chosen === undefined) chosen = -1;
      if (chosen >= 0) this.state.page = Math.floor(this.matches.indexOf(chosen) / this.index.page_rows);
    }
    if (chosen < 0 && this.matches.length) chosen = this.matches[this.state.page * this.index.page_rows];
    this.renderList(pages);
    if (write) this.writeHash();
    this.select(chosen >= 0 ? chosen : -1, false);
  };
  Viewer.prototype.renderList = function (pages) {
    const self = this, s = this.state, n = this.index.page_rows, rows = this.rows, v = this.values;
    const first = s.page * n, shown = this.matches.slice(first, first + n);
    this.status.textContent = this.matches.length
      ? "Episodes " + (first + 1).toLocaleString("en") + "–" + (first + shown.length).toLocaleString("en") + " of " +
        this.matches.length.toLocaleString("en") + " matching (" + this.total.toLocaleString("en") + " in all)"
      : "No episode matches these filters (" + this.total.toLocaleString("en") + " in all).";
    const many = { run: v.run.length > 1, model: v.model.length > 1 };
    const head = ["Episode"].concat(many.run ? ["Run"] : [], many.model ? ["Model"] : [],
      ["Variant", "Condition", "Outcome", "Failure mode", "Turns"]);
    const body = node("tbody");
    shown.forEach(function (k) {
      const outcome = v.outcome[rows.outcome[k]], cond = v.condition[rows.condition[k]];
      const tr = node("tr", null,
        node("td", "tv-id", breakable(v.task[rows.task[k]] + " #" + rows.seed[k])),
        many.run ? node("td", null, v.run[rows.run[k]]) : null,
        many.model ? node("td", null, v.model[rows.model[k]]) : null,
        node("td", null, v.variant[rows.variant[k]]),
        node("td", cond ? null : "tv-muted", cond || "clean"),
        node("td", null, chip(outcome, outcome === "not scored" ? null : outcome)),
        node("td", null, v.mode[rows.mode[k]]),
        node("td", null, String(rows.turns[k])));
      tr.dataset.row = String(k);
      tr.dataset.variant = v.variant[rows.variant[k]];
      tr.dataset.outcome = self.hashValue("outcome", outcome);
      tr.dataset.condition = self.hashValue("condition", cond);
      tr.tabIndex = 0;
      tr.title = self.episodeId(k);
      tr.addEventListener("click", function () { self.open(k); });
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") self.open(k); });
      body.appendChild(tr);
    });
    const table = node("table", null, node("thead", null, node("tr", null, head.map(function (h) {
      return node("th", null, h);
    }))), body);
    const pager = node("div", "tv-pager");
    const prev = node("button", null, "‹ Previous"), next = node("button", null, "Next ›");
    prev.type = next.type = "button";
    prev.disabled = s.page <= 0;
    next.disabled = s.page >= pages - 1;
    prev.addEventListener("click", function () { self.turnPage(-1); });
    next.addEventListener("click", function () { self.turnPage(1); });
    add(pager, [prev, node("span", null, "Page " + (s.page + 1) + " of " + pages), next]);
    this.list.textContent = "";
    add(this.list, [table, pages > 1 ? pager : null]);
  };
  Viewer.prototype.turnPage = function (step) {
    this.state.page += step;
    this.state.episode = this.state.of = "";
    this.update(true);
  };
  Viewer.prototype.open = function (k) {
    this.state.episode = this.episodeId(k);
    this.state.of = this.values.run.length > 1 ? this.values.run[this.rows.run[k]] : "";
    this.writeHash();
    this.select(k, true);
  };
  Viewer.prototype.select = function (k, focus) {
    this.selected = k;
    this.list.querySelectorAll("tr.tv-selected").forEach(function (tr) { tr.classList.remove("tv-selected"); });
    const tr = this.list.querySelector('tr[data-row="' + k + '"]');
    if (tr) tr.classList.add("tv-selected");
    if (k < 0) {
      this.detail.textContent = "";
      this.detail.appendChild(node("div", "tv-empty", "No episode to show."));
      return;
    }
    const self = this, per = this.index.chunk_episodes;
    this.chunk(Math.floor(k / per)).then(function (chunk) {
      if (self.selected !== k) return;
      return self.tools().then(function (tools) {
        if (self.selected !== k) return;
        self.detail.textContent = "";
        self.detail.appendChild(renderEpisode(chunk[k % per], tools));
        self.detail.dataset.episode = chunk[k % per].id;
        if (focus && self.detail.getBoundingClientRect().top < 0) self.detail.scrollIntoView();
      });
    }).catch(function (e) { self.detail.textContent = "Could not decode this episode: " + e; });
  };
  Viewer.prototype.chunk = function (i) {
    if (!this.chunks.has(i)) this.chunks.set(i, unpack("traces-chunk-" + i));
    return this.chunks.get(i);
  };
  Viewer.prototype.tools = function () {
    if (!this.toolSets) this.toolSets = unpack("traces-tools");
    return this.toolSets;
  };

  function texts(value, out) {
    // every string in a JSON value, in order
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(function (v) { texts(v, out); });
    else if (value && typeof value === "object") Object.keys(value).forEach(function (k) { texts(value[k], out); });
    return out;
  }
  function facts(pairs) {
    const dl = node("dl");
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === "") return;
      add(dl, [node("dt", null, p[0]), node("dd", null, p[1])]);
    });
    return dl;
  }
  function injectionBox(inj) {
    return node("div", "tv-msg tv-injected",
      node("div", "tv-label", chip(inj.subtype + " " + inj.severity, "injection"), inj.site + " · " + inj.target +
        (has(inj.call) ? " · native call " + inj.call : "")),
      node("div", null, inj.change),
      has(inj.original) ? [node("div", "tv-muted", "before"), pre(inj.original)] : null,
      has(inj.replacement) ? [node("div", "tv-muted", "after"), pre(inj.replacement)] : null);
  }
  function renderEpisode(ep, toolSets) {
    const out = node("div");
    const sc = ep.score || {};
    const kind = ep.outcome === "not scored" ? null : ep.outcome;
    add(out, node("h3", null, ep.id));
    add(out, node("div", null, chip(ep.outcome, kind), sc.mode ? chip(sc.mode, "failure") : null,
      ep.condition ? chip(ep.condition, "injection") : chip("clean")));
    add(out, facts([["run", ep.run], ["model", ep.model], ["task", ep.task.id + " (" + ep.task.domain + ", " +
      ep.task.kind + ", " + ep.task.form + ")"], ["variant", ep.variant + "  —  " + ep.spec], ["control", ep.control],
      ["seed", String(ep.seed)], ["end", ep.end + " after " + ep.turns.length + " of " + ep.max_turns + " turns"],
      ["error", ep.error], ["settings", JSON.stringify(ep.settings)]]));

    add(out, node("h4", null, "Score and attribution"));
    const stages = node("div");
    ["S1", "S2", "S3", "S4", "S5"].forEach(function (st) {
      if (sc[st]) add(stages, chip(st + " " + sc[st], sc[st] === "n/a" ? null : sc[st]));
    });
    add(out, stages);
    const yes = function (b) { return b === null || b === undefined ? null : (b ? "yes" : "no"); };
    add(out, facts([["success", yes(sc.success)], ["failure mode", sc.mode], ["primary error", sc.primary_error],
      ["earliest failed stage", sc.earliest_failed_stage], ["source stage", sc.source_stage],
      ["cascade", yes(sc.cascade)], ["boundary violation", yes(sc.boundary_violation)],
      ["protocol break", sc.protocol], ["schema-form success", yes(sc.schema_form_success)],
      ["ToolRobustBench error", sc.trb_primary_error ? sc.trb_primary_error + " (observed: " +
        sc.trb_observed_error + ")" : null]]));

    if (ep.perturbations.length || ep.injections.length) {
      add(out, node("h4", null, "Injected changes"));
      add(out, node("div", "tv-muted", ep.perturbations.map(function (p) {
        return p.subtype + " " + p.severity + " on " + p.target + " (aims at " + p.stage + ")";
      }).join("; ")));
      if (!ep.injections.length) add(out, node("div", "tv-muted", "No change was made in this episode."));
      ep.injections.forEach(function (inj) { add(out, injectionBox(inj)); });
    }

    add(out, node("h4", null, "Task"));
    add(out, pre(ep.task.query));
    add(out, node("div", "tv-muted", "gold: " + (ep.task.gold.map(function (a) { return call(a.op, a.args); })
      .join(", ") || "no action")));

    add(out, node("h4", null, "What the model saw and did"));
    const tools = toolSets[ep.tools] || [];
    const toolInj = ep.injections.filter(function (i) { return i.site === "tools"; });
    const toolBox = node("details", toolInj.length ? "tv-injected" : null, node("summary", null, "Tools shown (" +
      tools.length + ")" + (toolInj.length ? " — changed by " + toolInj.map(function (i) { return i.subtype; })
      .join(", ") : "") + ": " + tools.map(function (t) { return (t["function"] || t).name; }).join(", ")));
    tools.forEach(function (t) { add(toolBox, pre(t)); });
    add(out, toolBox);

    const byCall = {};
    ep.injections.forEach(function (inj) {
      if (has(inj.call)) (byCall[inj.call] = byCall[inj.call] || []).push(inj);
    });
    const byCallId = {};
    let native = 0;
    ep.turns.forEach(function (t) {
      t.calls.forEach(function (c) {
        if (!c.action) return;  // the native call index counts the calls that reached the runtime
        c.injections = byCall[native++] || [];
        byCallId[c.id] = c.injections;
      });
    });
    const queryInj = ep.injections.filter(function (i) { return i.site === "query"; });
    let firstUser = true, shown = 0;
    const messages = ep.messages;
    function showMessages(upto) {
      for (; shown < Math.min(upto, messages.length); shown++) {
        const m = messages[shown];
        let injs = [];
        if (m.role === "user" && firstUser) { injs = queryInj; firstUser = false; }
        if (m.role === "tool") injs = byCallId[m.tool_call_id] || [];
        const box = node("div", "tv-msg tv-role-" + String(m.role).replace(/[^a-z]/g, "") +
          (injs.length ? " tv-injected" : ""),
          node("div", "tv-label", m.role, m.name ? " · " + m.name : null,
            m.tool_call_id ? " · " + m.tool_call_id : null,
            injs.map(function (i) { return [" ", chip("injected: " + i.subtype + " — " + i.change, "injection")]; })));
        if (has(m.content) && m.content !== "") add(box, pre(m.content));
        (m.tool_calls || []).forEach(function (tc) {
          const f = tc["function"] || tc;
          add(box, node("div", "tv-id", "→ " + f.name + " " + (typeof f.arguments === "string" ? f.arguments :
            JSON.stringify(f.arguments))));
        });
        add(out, box);
      }
    }
    ep.turns.forEach(function (t, i) {
      showMessages(t.prompt);
      const box = node("div", "tv-turn", node("div", "tv-label", "Turn " + (i + 1) + " · prompt of " + t.prompt +
        " messages" + (t.tokens[0] !== null ? " · " + t.tokens[0] + " + " + t.tokens[1] + " tokens" : "") +
        " · " + t.latency_ms + " ms"));
      add(box, [node("div", "tv-muted", "raw output"), pre(t.raw)]);
      if (t.error) add(box, node("div", "tv-muted", "backend note: " + t.error));
      if (t.calls.length) {
        const rows = t.calls.map(function (c) {
          const adapter = [chip(c.outcome, c.outcome)];
          if (c.rejection) {
            const why = c.reply && typeof c.reply.error === "string" ? c.reply.error : c.reply;
            adapter.push(chip(c.rejection, "rejected"), node("div", null, typeof why === "string" ? why : pre(why)));
          }
          if (c.path.length > 1) adapter.push(node("div", "tv-muted", "via " + c.path.map(function (p) {
            return p.name; }).join(" → ")));
          const injs = c.injections || [];
          return node("tr", injs.length ? "tv-injected" : null,
            node("td", "tv-id", c.name + " " + c.raw),
            node("td", null, adapter),
            node("td", "tv-id", c.action ? call(c.action.op, c.action.args) : "—",
              injs.map(function (inj) {
                return node("div", null, chip(inj.subtype + ": " + inj.change, "injection"));
              })));
        });
        add(box, node("table", "tv-calls", node("thead", null, node("tr", null, node("th", null, "call as emitted"),
          node("th", null, "adapter"), node("th", null, "native action"))), node("tbody", null, rows)));
      }
      add(out, box);
    });
    showMessages(messages.length);

    add(out, node("h4", null, "Native actions executed"));
    if (!ep.actions.length) add(out, node("div", "tv-muted", "none"));
    add(out, node("ol", null, ep.actions.map(function (a) { return node("li", "tv-id", call(a.op, a.args)); })));
    return out;
  }

  async function start() {
    const root = document.getElementById("trace-viewer");
    if (!root) return;
    if (typeof DecompressionStream === "undefined") {
      root.textContent = "This browser cannot read the embedded traces (it lacks DecompressionStream: " +
        "Chrome 80+, Firefox 113+ and Safari 16.4+ have it).";
      return;
    }
    let index;
    try {
      index = await unpack("data-traces");
    } catch (e) {
      root.textContent = "Could not read the traces: " + e;
      return;
    }
    const viewer = new Viewer(root, index);
    viewer.build();
    const linked = viewer.readHash();
    viewer.update(false);
    root.dataset.ready = "1";
    root.dataset.readyMs = String(Math.round(performance.now()));
    if (linked) root.scrollIntoView();
    window.addEventListener("hashchange", function () { if (viewer.readHash()) viewer.update(false); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
"""
