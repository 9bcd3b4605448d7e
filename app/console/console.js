// The console: sign in, search (why this result), compare modes, documents (what changed),
// entities, watches. A client of the public API and nothing else (api.js); untrusted text
// rendered as text (render.js).
import { ApiError, call, callBlob, session } from "./api.js";
import { clear, el, fmt, highlighted } from "./render.js";

const $ = (id) => document.getElementById(id);
const MAX_WINDOW = 200;
const state = { offset: 0, lastBody: null, docOffset: 0, docLimit: 20, entityCursor: null };
const VIEWS = ["search", "compare", "documents", "entities", "watches", "sources", "batches"];
// Each search asks for the timeline of the days its versions name (drawn over the results)
const TIMELINE = "entities.dates_times:month";

// ---- sign in --------------------------------------------------------------------------

async function signIn(key) {
  $("sign-in-error").textContent = "";
  try {
    const me = await call("GET", "/clients/me", { key });
    session.key = key;
    showApp(me);
  } catch (err) {
    session.key = null;
    $("sign-in-error").textContent = err instanceof ApiError
      ? `${err.message} (${err.code})` : String(err);
  }
}

function showApp(me) {
  $("sign-in").hidden = true;
  $("tabs").hidden = false;
  $("who").textContent = `Signed in as client ${me.name}`;
  show("search");
  loadFilterKeys(me);
}

function signOut() {
  session.key = null;
  $("tabs").hidden = true;
  $("who").textContent = "";
  for (const v of VIEWS) $("view-" + v).hidden = true;
  $("sign-in").hidden = false;
  $("api-key").value = "";
  $("api-key").focus();
}

function show(view) {
  for (const button of $("tabs").querySelectorAll("button[data-view]")) {
    button.setAttribute("aria-pressed", String(button.dataset.view === view));
  }
  for (const v of VIEWS) $("view-" + v).hidden = v !== view;
  if (view === "documents") loadDocuments();
  if (view === "entities" && !$("entities").tBodies[0].rows.length) loadEntities();
  if (view === "watches") loadWatches();
  if (view === "sources") loadSources();
  if (view === "batches") loadBatches();
}

// ---- search ---------------------------------------------------------------------------

function filterRow(key = "", value = "") {
  const n = $("filters").children.length + 1;
  const keyInput = el("input", { type: "text", list: "filter-keys", value: key,
                                 "aria-label": `Filter ${n} key`, placeholder: "custom.project" });
  const valueInput = el("input", { type: "text", value, "aria-label": `Filter ${n} value`,
                                   placeholder: "Apollo" });
  const remove = el("button", { type: "button", "aria-label": `Remove filter ${n}`,
                                text: "Remove" });
  const row = el("div", { class: "filter-row" }, keyInput, el("span", { text: "=" }),
                 valueInput, remove);
  remove.addEventListener("click", () => row.remove());
  $("filters").append(row);
  keyInput.focus();
}

function filtersFromForm() {
  const filters = {};
  for (const row of $("filters").children) {
    const [key, value] = row.querySelectorAll("input");
    const k = key.value.trim();
    if (!k) continue;
    let v = value.value;
    try {
      const parsed = JSON.parse(v);
      // numbers, booleans, [lists] and {"gte": …} / {"not": …} objects; anything else a string
      if (parsed !== null) v = parsed;
    } catch (err) { /* a plain string */ }
    filters[k] = k in filters ? [].concat(filters[k], v) : v;
  }
  return filters;
}

async function loadFilterKeys(me) {
  const list = clear($("filter-keys"));
  for (const k of ["document_id", "version_id", "kind", "source"]) list.append(el("option", { value: k }));
  if (!me || !me.metadata_discovery || me.metadata_discovery.state !== "ready") return;
  try {
    const catalog = await call("GET", "/clients/me/metadata");
    for (const k of catalog.keys) list.append(el("option", { value: k.key }));
  } catch (err) { /* the keys are a convenience */ }
}

function searchBody(offset) {
  return {
    query: $("q").value,
    scope: $("scope").value,
    alpha: Number($("alpha").value),
    rerank: $("rerank").checked,
    explain: $("explain").checked,
    autocut: $("autocut").checked,
    filters: filtersFromForm(),
    limit: Number($("limit").value),
    offset,
    diagnose: $("why").value.trim() ? [$("why").value.trim()] : [],
    collapse: $("collapse").value,
    ...versionsAsked(),
    facets: [...new Set([...$("facets").value.split(",").map((k) => k.trim())
      .filter(Boolean).slice(0, 9), TIMELINE])],
  };
}

// Which versions answer: current (default), every published one, or those current at an instant
function versionsAsked() {
  const at = $("as-of").value;
  if (at) return { as_of: new Date(at).toISOString() };  // the browser's local time, as UTC
  return $("versions").value === "all" ? { versions: "all" } : {};
}

// The months the answer's versions name, as bars; a click narrows to that month's days.
function showTimeline(meta) {
  const months = (meta.facets || {})[TIMELINE] || [];
  const box = clear($("timeline-bars"));
  $("timeline").hidden = !months.length;
  if (!months.length) return;
  const most = Math.max(...months.map((m) => m.count));
  $("timeline-caption").textContent = timelineCaption(months);
  for (const m of months) {
    const fill = el("span", { class: "fill" });
    fill.style.height = `${Math.max(4, (60 * m.count) / most)}px`;  // CSSOM, allowed by the CSP
    const bar = el("button", { type: "button", class: "month",
                               "aria-label": `${m.value}: ${m.count} version(s)`,
                               title: `${m.value}: ${m.count}` },
      fill, el("span", { class: "label", text: m.value }));
    bar.addEventListener("click", () => {
      const [y, mo] = m.value.split("-").map(Number);
      const last = new Date(Date.UTC(y, mo, 0)).getUTCDate();
      filterRow("entities.dates_times", JSON.stringify({ gte: `${m.value}-01`, lte: `${m.value}-${last}` }));
      runSearch(0);
    });
    box.append(bar);
  }
}

// One plain sentence (issue 53: "the months these 3 month(s) … (4 version-month(s)) name")
function timelineCaption(months) {
  const n = months.length;
  return `The days the results name fall in ${n} ${n === 1 ? "month" : "months"}; ` +
    "click a month to keep the results that name it.";
}

function showFacets(meta) {
  const box = clear($("facet-counts"));
  for (const [key, values] of Object.entries(meta.facets || {})) {
    if (key === TIMELINE && !$("facets").value.includes(TIMELINE)) continue;  // drawn apart
    const buttons = values.map((v) => {
      const b = el("button", { type: "button", class: "facet",
                               text: `${String(v.value)} (${v.count})`,
                               "aria-label": `Filter ${key} = ${String(v.value)}` });
      b.addEventListener("click", () => {
        filterRow(key, typeof v.value === "string" ? v.value : JSON.stringify(v.value));
        runSearch(0);
      });
      return b;
    });
    if (!buttons.length) continue;  // nothing to count: no line saying so
    box.append(el("div", { class: "facet-group" }, el("span", { text: `${key}: ` }), ...buttons));
  }
}

// The filters in force as chips above the results, each removable (issue 53: an entity
// click's filter went on narrowing the next typed search without being seen)
function showFilterChips() {
  const box = clear($("filter-chips"));
  for (const row of [...$("filters").children]) {
    const [key, value] = row.querySelectorAll("input");
    if (!key.value.trim()) continue;
    const remove = el("button", { type: "button", text: "×",
                                  "aria-label": `Remove filter ${key.value.trim()}` });
    remove.addEventListener("click", () => { row.remove(); runSearch(0); });
    box.append(el("span", { class: "chip" }, `${key.value.trim()} = ${value.value}`, remove));
  }
}

async function runSearch(offset = 0) {
  $("results").dataset.state = "loading";  // "done" once this answer is on screen
  $("search-error").textContent = "";
  showFilterChips();
  clear($("watch-status"));  // a "Watching …" notice belongs to the search it was made for
  $("readiness").hidden = true;
  const body = searchBody(offset);
  if (body.offset + body.limit > MAX_WINDOW) body.offset = MAX_WINDOW - body.limit;
  try {
    const answer = await call("POST", "/search", { json: body });
    state.offset = body.offset;
    state.lastBody = body;
    renderAnswer(answer, body.explain);
  } catch (err) {
    clear($("results"));
    clear($("search-meta"));
    if (err.code === "METADATA_DISCOVERY_NOT_READY") showReadiness(err);
    else $("search-error").textContent = `${err.message} (${err.code})`;
  }
  $("results").dataset.state = "done";
}

function showReadiness(err) {
  const d = err.details || {};
  const box = clear($("readiness"));
  box.hidden = false;
  box.append(el("p", { text: `Scope ${d.scope} needs metadata discovery: it is ${d.state}` +
    (d.state === "discovering" ? `, ${Math.round((d.progress || 0) * 100)} % done ` +
      `(${d.indexed_versions} of ${d.published_versions} versions)` : "") + "." }));
  if (d.state === "disabled") {
    const enable = el("button", { type: "button", text: "Enable metadata discovery" });
    enable.addEventListener("click", async () => {
      try {
        const now = await call("POST", "/clients/me/metadata/discovery", { json: { enabled: true } });
        box.replaceChildren(el("p", { text: `Metadata discovery is ${now.state} ` +
          `(${Math.round(now.progress * 100)} %). Search again when it is ready.` }));
      } catch (e) { box.append(el("p", { class: "error", text: e.message })); }
    });
    box.append(enable);
  }
}

// The server's snippet (the words that matched, with a little context), marked, with … where
// the chunk goes on; the whole chunk when there is no snippet.
function snippetOf(item) {
  const cut = item.snippet;
  if (!cut) return highlighted(item.text, item.literal_spans);
  const spans = (item.literal_spans || [])
    .filter((s) => s.start >= cut.start && s.end <= cut.end)
    .map((s) => ({ start: s.start - cut.start, end: s.end - cut.start }));
  const out = highlighted(item.text.slice(cut.start, cut.end), spans);
  if (cut.start > 0) out.prepend(document.createTextNode("…"));
  if (cut.end < item.text.length) out.append(document.createTextNode("…"));
  return out;
}

function evidenceItem(item, lanes, version) {
  const where = item.page ? `page ${item.page}` :
    item.line_start ? (item.line_end && item.line_end !== item.line_start
      ? `lines ${item.line_start}–${item.line_end}` : `line ${item.line_start}`) : "";
  const heading = (item.heading_path || []).join(" › ");
  let show = null;
  if (item.boxes && item.page && version) {  // a paged document: its page, the words boxed
    show = el("button", { type: "button", class: "link", text: `Show page ${item.page}`,
                          "aria-label": `Show page ${item.page} of ${version.document_id}` });
    show.addEventListener("click", () => openPage(version, item));
  }
  const node = el("div", { class: "evidence" },
    (where || heading) ? el("div", { class: "where" }, [where, heading].filter(Boolean).join(" · "),
                            show ? " " : "", show) : null,
    el("p", { class: "snippet" }, snippetOf(item)),
    (item.context_matches || []).length  // found by words of its title or headings
      ? el("p", { class: "context-matches" }, "Its ",
           (item.context_matches || []).flatMap((m, i) => [i ? " and " : "",
             `${m.where} `, highlighted(m.text, m.spans)]), " holds the query's words")
      : null,
    item.snippet && (item.snippet.start > 0 || item.snippet.end < item.text.length)
      ? el("details", {}, el("summary", { text: "whole passage" }),
        el("p", {}, highlighted(item.text, item.literal_spans)))
      : null);
  if (item.scores) {
    const s = item.scores;
    const floors = Object.fromEntries((lanes || []).map((l) => [l.lane, l.floor]));
    node.append(el("p", { class: "scores" },
      el("span", { class: "score-dense", text: `dense ${fmt(s.dense, 4)} (rank ${s.dense_rank ?? "—"}, floor ${fmt(floors.dense, 2)})` }),
      " · ",
      el("span", { class: "score-sparse", text: `BM25 ${fmt(s.sparse, 4)} (rank ${s.sparse_rank ?? "—"}, floor ${fmt(floors.sparse, 2)})` }),
      " · ",
      el("span", { class: "score-fused", text: `fused ${fmt(s.fused, 6)}` }),
      " · ",
      el("span", { class: "score-rerank", text: `rerank ${fmt(s.rerank, 4)}` })));
  }
  return node;
}

function resultCard(row, lanes) {
  const meta = row.canonical_metadata || {};
  const filename = (meta.source || {}).filename || row.document_version.document_id;
  const title = (meta.document || {}).title;
  const ev = row.content_evidence;
  const card = el("li", { class: "card" },
    el("h3", {}, `${row.rank}. ${filename}`, title ? ` — ${title}` : ""),
    el("div", { class: "ref", text: `${row.document_version.document_id} · version ` +
      `${row.document_version.version_id ?? "—"} · ` +
      row.retrieval_contributions.map((c) => `${c.lane} #${c.rank}`).join(", ") }),
    row.document_version.is_current === false
      ? el("div", { class: "superseded", text: `Superseded by ${row.document_version.superseded_by ?? "a newer version"}` +
          (row.document_version.superseded_at ? ` on ${row.document_version.superseded_at.slice(0, 10)}` : "") })
      : null,
    ev.items.map((item) => evidenceItem(item, lanes, row.document_version)));
  if (ev.total) {
    card.append(el("div", { class: "hint", text: `${ev.items.length} of ${ev.total} matching ` +
      `chunks shown${ev.truncated ? " (truncated)" : ""}` }));
  }
  const dup = (row.canonical_metadata || {}).duplicates;
  if (dup && (dup.exact.length || dup.near.length)) {
    card.append(el("p", { class: "hint duplicates", text: [
      dup.exact.length ? `Same text as: ${dup.exact.join(", ")}` : "",
      dup.near.length ? `Nearly the same: ${dup.near.map((n) =>
        `${n.document_id} (${Number(n.similarity).toFixed(2)})`).join(", ")}` : "",
    ].filter(Boolean).join(" · ") }));
  }
  if (row.thread) card.append(threadBox(row.thread));
  const md = row.metadata_evidence;
  if (md.items.length) {
    card.append(el("ul", { class: "metadata" }, md.items.map((m) =>
      el("li", {}, el("strong", { text: m.key }), " = ",
         highlighted(typeof m.value === "string" ? m.value : JSON.stringify(m.value), m.spans),
         ` (${m.match})`))));
  }
  return card;
}

// A collapsed thread: how many messages, and on request the messages in order
function threadBox(thread) {
  const list = el("ol", { class: "thread" });
  const open = el("button", { type: "button", class: "link",
                              text: `Thread: ${thread.messages} message${thread.messages === 1 ? "" : "s"}` });
  open.addEventListener("click", async () => {
    try {
      const answer = await call("GET", `/threads/${encodeURIComponent(thread.thread_id)}`);
      clear(list).append(...answer.messages.map((m) => el("li", {},
        el("strong", { text: m.document_id }), ` · ${(m.date || "undated").slice(0, 16)} · `,
        `${m.from || "?"} · ${m.subject || "(no subject)"}`,
        m.in_reply_to ? ` (answers ${m.in_reply_to})` : "")));
      list.dataset.state = "done";
    } catch (err) {
      clear(list).append(el("li", { class: "error", text: `${err.message} (${err.code})` }));
    }
  });
  return el("div", { class: "thread-box" }, open, list);
}

function diagnosisBox(d) {
  const lanes = (d.lanes || []).map((l) => {
    const name = l.lane === "sparse" ? "BM25" : "dense";
    if (l.score === null) return `${name}: no match`;
    const where = l.rank !== null ? `rank ${l.rank}` : `beyond rank ${l.beyond}`;
    return `${name}: ${l.chunk_id} scored ${fmt(l.score, 4)} (${where}` +
      (l.floor !== null ? `, floor ${l.floor}` : "") + `) ${l.passed ? "passed" : "under the floor"}`;
  });
  return el("div", { class: "notice diagnosis", role: "status" },
    el("p", {}, el("strong", { text: `Why ${d.document_id}${d.version_id ? " " + d.version_id : ""}: ${d.status}` })),
    el("p", { text: d.message }),
    lanes.length ? el("ul", {}, lanes.map((t) => el("li", { class: "scores", text: t }))) : null,
    Object.keys(d.filters || {}).length ? el("p", { class: "scores", text: "its values: " +
      JSON.stringify(d.filters) }) : null);
}

function renderTimings(timings) {
  const box = clear($("timings"));
  const entries = Object.entries(timings || {}).filter(([k]) => k !== "total");
  const total = (timings || {}).total || 0;
  box.hidden = !entries.length;
  if (!entries.length) return;
  const max = Math.max(...entries.map(([, v]) => v), 0.001);
  box.append(el("div", { class: "bars", role: "img",
                         "aria-label": `Timings of this answer, ${fmt(total, 1)} ms in all` },
    entries.map(([stage, ms]) => {
      const fill = el("span", { class: "fill" });
      fill.style.width = `${(100 * ms) / max}%`;  // CSSOM, allowed by the CSP
      return el("div", { class: "bar" }, el("span", { text: stage }), el("span", {}, fill),
                el("span", { text: `${fmt(ms, 1)} ms` }));
    })));
}

function renderAnswer(answer, explain) {
  const m = answer.meta;
  const metaBox = clear($("search-meta"));
  const first = m.total ? m.offset + 1 : 0;
  const last = m.offset + answer.results.length;
  metaBox.append(el("p", { text: `${m.total}${m.total_is_lower_bound ? "+" : ""} document ` +
    `version${m.total === 1 ? "" : "s"}` + (answer.results.length ? `, showing ${first}–${last}` : "") +
    ` · alpha ${m.retrieval.alpha} · ${m.retrieval.fusion || "rank"} fusion` +
    (m.retrieval.lanes && m.retrieval.lanes.length ? ` · lanes ${m.retrieval.lanes.join(", ")}` : "") +
    (m.retrieval.status === "partial" ? ` · partial: ${(m.retrieval.failures || [])
      .map((f) => `${f.lane} (${f.code})`).join(", ")} did not answer` : "") +
    (m.retrieval.reranked ? ` · reranked ${m.retrieval.reranked_count}` : "") +
    ` · ${fmt(m.query_time_ms, 1)} ms` +
    (m.total_is_lower_bound ? " · the total is a lower bound (the candidate ceiling was reached)" : "") }));
  const said = [];
  if (m.query_syntax) {
    said.push(...m.query_syntax.phrases.map((p) => `phrase "${p}"`),
      ...m.query_syntax.exclusions.map((w) => `without ${w}`),
      `removed ${m.query_syntax.removed_by_phrases + m.query_syntax.removed_by_exclusions}`);
  }
  if (m.autocut) said.push(`clear matches: kept ${m.autocut.kept} of ${m.autocut.of}`);
  if (said.length) metaBox.append(el("p", { class: "syntax", text: said.join(" · ") }));
  if (m.warnings && m.warnings.length) {
    metaBox.append(el("ul", { class: "warnings" }, m.warnings.map((w) => el("li", { text: w }))));
  }
  showFacets(m);
  showTimeline(m);
  if (explain && m.lanes) {
    metaBox.append(el("p", { class: "scores", text: m.lanes.map((l) =>
      `${l.lane === "sparse" ? "BM25" : "dense"} lane: fetched ${l.fetched}, kept ${l.kept}` +
      (l.floor === null ? " (no floor)" : ` at or over the floor ${l.floor}`)).join(" · ") }));
  }
  for (const d of m.diagnostics || []) metaBox.append(diagnosisBox(d));
  renderTimings(explain ? m.timings : null);
  clear($("results")).append(...answer.results.map((row) => resultCard(row, m.lanes)));
  $("page-info").textContent = m.total ? `Results ${first}–${last} of ${m.total}` +
    ` (at most ${MAX_WINDOW} reachable)` : "";
  $("prev").disabled = m.offset === 0;
  $("next").disabled = !m.has_more || m.offset + m.limit >= MAX_WINDOW;
}

// ---- compare modes --------------------------------------------------------------------

async function runCompare() {
  $("compare-error").textContent = "";
  const query = $("compare-q").value;
  const modes = [["Keyword (alpha 0)", 0], ["Dense (alpha 1)", 1], ["Hybrid (alpha 0.5)", 0.5]];
  try {
    const answers = await Promise.all(modes.map(([, alpha]) =>
      call("POST", "/search", { json: { query, alpha, limit: 10 } })));
    const keys = answers.map((a) => new Set(a.results.map((r) =>
      `${r.document_version.document_id}@${r.document_version.version_id}`)));
    const common = [...keys[0]].filter((k) => keys.every((s) => s.has(k)));
    const box = clear($("compare"));
    answers.forEach((answer, i) => {
      box.append(el("section", { "aria-label": modes[i][0] },
        el("h3", { text: modes[i][0] }),
        el("p", { class: "hint", text: `${answer.meta.total} versions · ${fmt(answer.meta.query_time_ms, 1)} ms` }),
        answer.meta.warnings.length ? el("ul", { class: "warnings" },
          answer.meta.warnings.map((w) => el("li", { text: w }))) : null,
        el("ol", {}, answer.results.map((r) => {
          const k = `${r.document_version.document_id}@${r.document_version.version_id}`;
          const shared = common.includes(k);
          const meta = r.canonical_metadata || {};
          const filename = (meta.source || {}).filename;
          // its top passage and why it came up (seed 000): the marked words, else meaning
          const item = ((r.content_evidence || {}).items || [])[0];
          const why = item ? ((item.literal_spans || []).length
            ? `its words: ${[...new Set(item.literal_spans.map((x) => x.text.toLowerCase()))].join(", ")}`
            : (item.context_matches || []).length ? `its ${item.context_matches[0].where}`
              : "by meaning (no query word in it)") : "by its metadata";
          return el("li", { class: shared ? "common" : undefined },
            `${r.document_version.document_id} ${r.document_version.version_id ?? ""}`,
            filename && filename !== r.document_version.document_id
              ? el("span", { class: "hint", text: ` (${filename})` }) : null,
            shared ? " ● in all three" : "",
            item ? el("p", { class: "compare-passage" }, snippetOf(item)) : null,
            el("p", { class: "hint compare-why", text: `came up by ${why}` }));
        }))));
    });
  } catch (err) {
    $("compare-error").textContent = `${err.message} (${err.code})`;
  }
}

// ---- documents ------------------------------------------------------------------------

// ---- entities -------------------------------------------------------------------------

async function loadEntities(more = false) {
  $("entities-error").textContent = "";
  const group = $("entity-group").value;
  const params = new URLSearchParams({ group, limit: "50" });
  if ($("entity-q").value.trim()) params.set("q", $("entity-q").value.trim());
  if (more && state.entityCursor) params.set("cursor", state.entityCursor);
  const body = $("entities").tBodies[0];
  $("entities").dataset.state = "loading";
  try {
    const page = await call("GET", `/entities?${params}`);
    if (!more) clear(body);
    for (const item of page.items) {
      const open = el("button", { type: "button", class: "link", text: item.value,
                                  "aria-label": `Search for ${item.value}` });
      open.addEventListener("click", () => searchEntity(group, item));
      const others = item.spellings.filter((s) => s !== item.value);
      body.append(el("tr", {}, el("td", {}, open), el("td", { text: String(item.documents) }),
                     el("td", { text: String(item.mentions) }),
                     el("td", { class: "hint", text: others.join(" · ") })));
    }
    $("entities-caption").textContent = `${page.total} ${group.replace("_", " ")}` +
      (body.rows.length < page.total ? `, showing ${body.rows.length}` : "");
    state.entityCursor = page.next_cursor;
    $("entities-more").disabled = !page.next_cursor;
  } catch (err) {
    $("entities-error").textContent = `${err.message} (${err.code})`;
  }
  $("entities").dataset.state = "done";
}

// A click on an entity: search for it, kept to the versions naming it in any of its spellings
function searchEntity(group, item) {
  $("q").value = item.value;
  clear($("filters"));
  filterRow(`entities.${group}`, JSON.stringify(item.spellings));
  show("search");
  runSearch(0);
}

async function loadDocuments() {
  $("documents-error").textContent = "";
  const params = new URLSearchParams({ limit: state.docLimit, offset: state.docOffset,
                                       sort: "updated_at", order: "desc" });
  if ($("doc-kind").value) params.append("kind", $("doc-kind").value);
  if ($("doc-state").value) params.append("state", $("doc-state").value);
  try {
    const list = await call("GET", "/documents?" + params);
    $("documents-caption").textContent = `${list.total} document(s)`;
    const body = clear($("documents").querySelector("tbody"));
    for (const d of list.documents) {
      const open = el("button", { type: "button", text: d.document_id,
                                  "aria-label": `Open ${d.document_id}` });
      open.addEventListener("click", () => openDocument(d.document_id));
      const remove = el("button", { type: "button", text: "Delete",
                                    "aria-label": `Delete ${d.document_id}` });
      remove.addEventListener("click", () => deleteDocument(d.document_id));
      body.append(el("tr", {},
        el("td", {}, open, el("div", { class: "hint", text: d.filename })),
        el("td", { text: d.title || "—" }),
        el("td", { class: `state-${d.state}`, text: d.state + (d.error ? `: ${d.error}` : "") }),
        el("td", { text: String(d.version_count) }),
        el("td", { text: d.updated_at.replace("T", " ").slice(0, 16) }),
        el("td", {}, remove)));
    }
    $("doc-prev").disabled = state.docOffset === 0;
    $("doc-next").disabled = state.docOffset + state.docLimit >= list.total;
  } catch (err) {
    $("documents-error").textContent = `${err.message} (${err.code})`;
  }
}

async function openDocument(id) {
  const box = clear($("document-detail"));
  try {
    const d = await call("GET", `/documents/${encodeURIComponent(id)}`);
    box.append(el("h3", { text: `${d.document_id}${d.title ? " — " + d.title : ""}` }),
      el("table", {}, el("caption", { text: "Versions" }),
        el("thead", {}, el("tr", {}, ["Version", "State", "File", "Chunks", "Published",
                                     "Superseded", "Changes"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, d.versions.map((v) => el("tr", {},
          el("td", { text: v.version_id }),
          el("td", { class: `state-${v.state}`, text: v.state }),
          el("td", { text: v.filename }), el("td", { text: String(v.chunk_count) }),
          el("td", { text: v.published_at ? v.published_at.slice(0, 19) : "—" }),
          el("td", { text: v.superseded_at ? `${v.superseded_at.slice(0, 19)} by ${v.superseded_by}` : "—" }),
          el("td", {}, changesButton(d.document_id, v)))))),
      el("div", { id: "changes", "aria-live": "polite" }));
    if (d.error) box.append(el("p", { class: "error", text: `The latest version failed: ${d.error}` }));
  } catch (err) {
    box.append(el("p", { class: "error", text: `${err.message} (${err.code})` }));
  }
  box.scrollIntoView({ block: "start" });  // below a long list: shown where the eye goes
}

// A published version's changes against its predecessor, side by side
// The page behind a citation (GET …/pages/{n}.png with the chunk highlighted): previous
// and next page, zoom, the original file; images fetched with the key, shown as blob: URLs.
const viewer = { documentId: null, versionId: null, page: 1, width: 900, highlight: null,
                 filename: null, url: null };

function openPage(version, item) {
  Object.assign(viewer, { documentId: version.document_id, versionId: version.version_id,
                          page: item.page, highlight: item.chunk_id, width: 900 });
  const dialog = $("page-viewer");
  if (!dialog.open) dialog.showModal();
  showPage();
}

async function showPage() {
  const status = $("page-status");
  const base = `/documents/${encodeURIComponent(viewer.documentId)}/versions/${encodeURIComponent(viewer.versionId)}`;
  $("page-title").textContent = `${viewer.documentId} ${viewer.versionId} · page ${viewer.page}`;
  status.textContent = "Loading…";
  status.classList.remove("error");
  try {
    const query = new URLSearchParams({ width: String(viewer.width) });
    if (viewer.highlight) query.set("highlight", viewer.highlight);
    const blob = await callBlob(`${base}/pages/${viewer.page}.png?${query}`);
    if (viewer.url) URL.revokeObjectURL(viewer.url);
    viewer.url = URL.createObjectURL(blob);
    const img = $("page-image");
    img.alt = `Page ${viewer.page} of ${viewer.documentId}, the cited words boxed`;
    img.src = viewer.url;
    status.textContent = "";
  } catch (err) {
    status.textContent = `${err.message} (${err.code})`;
    status.classList.add("error");
  }
}

function turnPage(by) {
  viewer.page = Math.max(1, viewer.page + by);
  showPage();
}

function zoom(by) {
  viewer.width = Math.min(2000, Math.max(300, viewer.width + by));
  showPage();
}

async function downloadOriginal() {
  const status = $("page-status");
  try {
    const base = `/documents/${encodeURIComponent(viewer.documentId)}/versions/${encodeURIComponent(viewer.versionId)}`;
    const blob = await callBlob(`${base}/file`);
    const link = el("a", { href: URL.createObjectURL(blob), download: viewer.documentId });
    document.body.append(link);
    link.click();
    link.remove();
  } catch (err) {
    status.textContent = `${err.message} (${err.code})`;
    status.classList.add("error");
  }
}

function changesButton(documentId, version) {
  if (!version.published_at) return "—";
  const button = el("button", { type: "button", class: "link", text: "What changed",
                                "aria-label": `What changed in ${version.version_id}` });
  button.addEventListener("click", () => showChanges(documentId, version.version_id));
  return button;
}

function where(side) {
  const at = (side && side.location) || {};
  const parts = [];
  if (at.page) parts.push(`page ${at.page}`);
  const table = at.location;
  if (table && table.rows) parts.push(`${table.sheet ? table.sheet + " " : ""}rows ${table.rows[0]}–${table.rows[1]}`);
  if (at.heading_path && at.heading_path.length) parts.push(at.heading_path.join(" › "));
  if (at.line_start) parts.push(at.line_start === at.line_end ? `line ${at.line_start}` : `lines ${at.line_start}–${at.line_end}`);
  return parts.join(" · ");
}

async function showChanges(documentId, versionId) {
  const box = clear($("changes"));
  box.dataset.state = "loading";
  try {
    const c = await call("GET", `/documents/${encodeURIComponent(documentId)}/changes?to=${encodeURIComponent(versionId)}`);
    const cell = (side) => side
      ? el("td", {}, el("div", {}, highlighted(side.text, (side.marks || []).map(([start, end]) => ({ start, end })))),
        el("div", { class: "hint", text: where(side) }))
      : el("td", { class: "hint", text: "—" });
    box.append(el("table", { class: "changes" },
      el("caption", { text: `${c.from || "nothing"} → ${c.to}: ${c.changes.length} change(s)` +
                            (c.complete === false ? " (stopped early: the documents are large)" : "") }),
      el("thead", {}, el("tr", {}, ["", c.from || "before", c.to].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, c.changes.map((ch) => el("tr", { class: `change-${ch.kind}` },
        el("th", { scope: "row", text: ch.kind }), cell(ch.before), cell(ch.after))))));
  } catch (err) {
    box.append(el("p", { class: "error", text: `${err.message} (${err.code})` }));
  }
  box.dataset.state = "done";
}

async function deleteDocument(id) {
  if (!window.confirm(`Delete ${id} and every version of it?`)) return;
  try {
    await call("DELETE", `/documents/${encodeURIComponent(id)}`);
    clear($("document-detail"));
    await loadDocuments();
  } catch (err) {
    $("documents-error").textContent = `${err.message} (${err.code})`;
  }
}

async function upload(file) {
  const status = clear($("upload-status"));
  if (!file) { status.append(el("p", { class: "error", text: "Choose a file first." })); return; }
  const form = new FormData();
  form.append("file", file, file.name);
  const id = $("doc-id").value.trim();
  if (id) form.append("document_id", id);
  const access = $("doc-access").value.trim();
  if (access) form.append("access", access);
  const meta = $("doc-meta").value.trim();
  if (meta) {
    let parsed;
    try { parsed = JSON.parse(meta); } catch (err) { parsed = undefined; }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
      status.append(el("p", { class: "error", text: "Metadata must be a JSON object, e.g. {\"project\": \"Apollo\"}." }));
      return;
    }
    form.append("metadata", meta);
  }
  try {
    const accepted = await call("POST", "/documents", { form });
    const bar = el("progress", { max: "1", value: "0", "aria-label": `Indexing ${file.name}` });
    const words = el("span", { text: ` ${file.name}: ${accepted.status}` });
    status.append(el("p", { class: "job" }, bar, words));
    for (;;) {
      const job = await call("GET", `/jobs/${accepted.job_id}`);
      bar.value = job.status === "succeeded" ? 1 : job.progress;
      if (job.status === "succeeded") {
        words.textContent = ` ${file.name}: published as ${job.document_id} ${job.version_id}` +
          (accepted.deduplicated ? " (the same bytes were already there)" : "");
        break;
      }
      if (job.status === "failed") {
        words.textContent = ` ${file.name}: failed: ${job.error}`;
        words.className = "error";
        break;
      }
      words.textContent = ` ${file.name}: ${job.status} ${Math.round(job.progress * 100)} %` +
        (job.stage ? ` (${job.stage.name} ${job.stage.done}/${job.stage.total} ${job.stage.unit})` : "");
      await new Promise((r) => setTimeout(r, 400));
    }
    await loadDocuments();
  } catch (err) {
    status.append(el("p", { class: "error", text: `${err.message} (${err.code})` }));
  }
}

// ---- watches --------------------------------------------------------------------------

async function watchSearch() {
  const status = clear($("watch-status"));
  if (!$("q").value.trim()) { status.append(el("p", { class: "error", text: "Type a search first." })); return; }
  const b = searchBody(0);
  try {
    // the same search watched already: said, not made twice (issue 53)
    const same = (await call("GET", "/watches")).items.find((w) => w.query === b.query &&
      w.scope === b.scope && (w.alpha ?? null) === (b.alpha ?? null) && !w.webhook_url &&
      JSON.stringify(w.filters || {}) === JSON.stringify(b.filters || {}));
    if (same) {
      status.append(el("p", { text: `Already watching “${same.query}” (${same.watch_id}).` }));
      return;
    }
    const w = await call("POST", "/watches", { json: { query: b.query, scope: b.scope, alpha: b.alpha,
                                                      filters: b.filters } });
    status.append(el("p", { text: `Watching “${w.query}” (${w.watch_id}): new versions it finds are listed under Watches.` }));
  } catch (err) {
    status.append(el("p", { class: "error", text: `${err.message} (${err.code})` }));
  }
}

async function loadWatches() {
  $("watches-error").textContent = "";
  $("watches").dataset.state = "loading";
  try {
    const list = await call("GET", "/watches");
    $("watches-caption").textContent = `${list.items.length} watch(es)`;
    const body = clear($("watches").tBodies[0]);
    for (const w of list.items) {
      const open = el("button", { type: "button", class: "link", text: `${w.matches} match(es)`,
                                  "aria-label": `Matches of ${w.name || w.query}` });
      open.addEventListener("click", () => loadMatches(w));
      const remove = el("button", { type: "button", text: "Delete", "aria-label": `Delete watch ${w.name || w.query}` });
      remove.addEventListener("click", () => deleteWatch(w));
      const filters = Object.entries(w.filters || {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ");
      body.append(el("tr", {},
        el("td", {}, el("div", { text: w.name || w.watch_id }), el("div", { class: "hint", text: `since ${w.created_at.slice(0, 16).replace("T", " ")}` })),
        el("td", {}, el("div", { text: `“${w.query}”` }), el("div", { class: "hint", text: [w.scope, filters].filter(Boolean).join(" · ") })),
        el("td", {}, open), el("td", { text: w.webhook_url || "—" }), el("td", {}, remove)));
    }
  } catch (err) {
    $("watches-error").textContent = `${err.message} (${err.code})`;
  }
  $("watches").dataset.state = "done";
}

// A source's last report in words: what was new, changed, renamed, deleted, what failed
function sourceFound(report) {
  if (!report) return "not synced yet";
  const counts = ["new", "changed", "renamed", "deleted", "kept"]
    .filter((k) => report[k] && report[k].length).map((k) => `${k} ${report[k].length}`);
  const read = report.read !== undefined ? `read ${report.read} file(s)` :
    `fetched ${Object.values(report.folders || {}).reduce((n, f) => n + f.fetched, 0)}`;
  return [`seen ${report.seen}`, `unchanged ${report.unchanged}`, ...counts,
          `failed ${report.failed_count || 0}`, read].join(", ") +
    (report.truncated ? " (more than one sync reads)" : "");
}

async function loadSources() {
  $("sources-error").textContent = "";
  $("sources").dataset.state = "loading";
  try {
    const list = await call("GET", "/sources");
    $("sources-caption").textContent = `${list.items.length} source(s)`;
    const body = clear($("sources").tBodies[0]);
    for (const src of list.items) {
      const sync = el("button", { type: "button", text: "Sync now", "aria-label": `Sync ${src.path}` });
      sync.addEventListener("click", async () => {
        sync.disabled = true;
        try { await call("POST", `/sources/${src.source_id}/sync?wait=true`); await loadSources(); }
        catch (err) { $("sources-error").textContent = `${err.message} (${err.code})`; sync.disabled = false; }
      });
      const failed = (src.last_report && src.last_report.failed) || [];
      body.append(el("tr", {},
        el("td", {}, el("div", { text: src.path }), el("div", { class: "hint", text: [src.kind, src.source_id,
          src.every_s ? `every ${src.every_s / 60} min` : "by hand"].join(" · ") })),
        el("td", { text: src.last_sync_at ? src.last_sync_at.slice(0, 19).replace("T", " ") : "—" }),
        el("td", {}, el("div", { text: sourceFound(src.last_report) }),
           failed.length ? el("ul", { class: "hint" }, failed.map((f) =>
             el("li", { text: `${f.path}: ${f.code}` }))) : null),
        el("td", {}, sync)));
    }
  } catch (err) {
    $("sources-error").textContent = `${err.message} (${err.code})`;
  }
  $("sources").dataset.state = "done";
}

// ---- batch search ----------------------------------------------------------------------

async function startBatch(file) {
  $("batch-error").textContent = "";
  if (!file) { $("batch-error").textContent = "Choose a list first."; return; }
  const form = new FormData();
  form.append("file", file, file.name);
  form.append("options", JSON.stringify({ limit: Number($("batch-limit").value) || 10 }));
  try {
    await call("POST", "/searches/batch/upload", { form });
    $("batch-file").value = "";
  } catch (err) {
    $("batch-error").textContent = `${err.message} (${err.code})`;
  }
  await loadBatches();
}

async function download(batch, format) {
  try {
    const blob = await callBlob(`/searches/batch/${batch.batch_id}/results?format=${format}`);
    const link = el("a", { href: URL.createObjectURL(blob), download: `${batch.name || batch.batch_id}.${format}` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  } catch (err) {
    $("batch-error").textContent = `${err.message} (${err.code})`;
  }
}

async function loadBatches() {
  clearTimeout(state.batchTimer);
  $("batches").dataset.state = "loading";
  let active = false;
  try {
    const list = await call("GET", "/searches/batch");
    $("batches-caption").textContent = `${list.items.length} batch search(es)`;
    const body = clear($("batches").tBodies[0]);
    for (const b of list.items) {
      active = active || b.status === "queued" || b.status === "running";
      const bar = el("progress", { max: String(b.total), value: String(b.done),
                                   "aria-label": `${b.name || b.batch_id}: ${b.done} of ${b.total}` });
      const csv = el("button", { type: "button", text: "CSV" });
      csv.addEventListener("click", () => download(b, "csv"));
      const jsonl = el("button", { type: "button", text: "JSON lines" });
      jsonl.addEventListener("click", () => download(b, "jsonl"));
      body.append(el("tr", { "data-batch": b.batch_id },
        el("td", {}, el("div", { text: b.name || b.batch_id }),
           el("div", { class: "hint", text: `${b.status} · ${b.created_at.slice(0, 19).replace("T", " ")}` })),
        el("td", {}, bar, el("span", { text: ` ${b.done} of ${b.total} queries` })),
        el("td", { text: `${b.hits}` + (b.failed_queries ? ` (${b.failed_queries} refused)` : "") }),
        el("td", { class: "actions" }, csv, jsonl)));
    }
  } catch (err) {
    $("batch-error").textContent = `${err.message} (${err.code})`;
  }
  $("batches").dataset.state = active ? "running" : "done";
  if (active && !$("view-batches").hidden) state.batchTimer = setTimeout(loadBatches, 1000);
}

async function loadMatches(w) {
  const box = clear($("watch-matches"));
  box.dataset.state = "loading";
  try {
    const page = await call("GET", `/watches/${encodeURIComponent(w.watch_id)}/matches?limit=200`);
    box.append(el("h3", { text: `Matches of “${w.query}”` }));
    const list = el("ol", { class: "results" });
    for (const m of page.items) {
      const evidence = m.evidence.slice(0, 3).map((item) => el("div", { class: "evidence" },
        highlighted(item.text, item.literal_spans)));
      list.append(el("li", { class: "card" },
        el("h3", { text: `${m.document_id} ${m.version_id}` }),
        el("div", { class: "ref", text: `matched ${m.matched_at.slice(0, 19).replace("T", " ")}` +
                                        (m.delivery ? ` · webhook ${m.delivery.state}` : "") }),
        evidence));
    }
    if (!page.items.length) list.append(el("li", { class: "hint", text: "Nothing published since matched." }));
    box.append(list);
  } catch (err) {
    box.append(el("p", { class: "error", text: `${err.message} (${err.code})` }));
  }
  box.dataset.state = "done";
}

async function deleteWatch(w) {
  if (!window.confirm(`Delete the watch “${w.query}” and its matches?`)) return;
  try {
    await call("DELETE", `/watches/${encodeURIComponent(w.watch_id)}`);
    clear($("watch-matches"));
    await loadWatches();
  } catch (err) {
    $("watches-error").textContent = `${err.message} (${err.code})`;
  }
}

// ---- wiring ---------------------------------------------------------------------------

function wirePageViewer() {
  $("page-prev").addEventListener("click", () => turnPage(-1));
  $("page-next").addEventListener("click", () => turnPage(1));
  $("page-zoom-in").addEventListener("click", () => zoom(300));
  $("page-zoom-out").addEventListener("click", () => zoom(-300));
  $("page-download").addEventListener("click", downloadOriginal);
  $("page-close").addEventListener("click", () => $("page-viewer").close());
}

function wire() {
  wirePageViewer();
  $("sign-in-form").addEventListener("submit", (e) => { e.preventDefault(); signIn($("api-key").value.trim()); });
  $("sign-out").addEventListener("click", signOut);
  for (const button of $("tabs").querySelectorAll("button[data-view]")) {
    button.addEventListener("click", () => show(button.dataset.view));
  }
  $("alpha").addEventListener("input", () => { $("alpha-value").textContent = Number($("alpha").value).toFixed(2); });
  $("search-form").addEventListener("submit", (e) => { e.preventDefault(); runSearch(0); });
  $("add-filter").addEventListener("click", () => filterRow());
  $("watch-search").addEventListener("click", watchSearch);
  $("prev").addEventListener("click", () => runSearch(Math.max(0, state.offset - Number($("limit").value))));
  $("next").addEventListener("click", () => runSearch(state.offset + Number($("limit").value)));
  $("compare-form").addEventListener("submit", (e) => { e.preventDefault(); runCompare(); });
  $("upload-form").addEventListener("submit", (e) => { e.preventDefault(); upload($("file").files[0]); });
  $("batch-form").addEventListener("submit", (e) => { e.preventDefault(); startBatch($("batch-file").files[0]); });
  $("entities-form").addEventListener("submit", (e) => { e.preventDefault(); loadEntities(); });
  $("entity-group").addEventListener("change", () => loadEntities());
  $("entities-more").addEventListener("click", () => loadEntities(true));
  $("doc-refresh").addEventListener("click", () => { state.docOffset = 0; loadDocuments(); });
  $("doc-kind").addEventListener("change", () => { state.docOffset = 0; loadDocuments(); });
  $("doc-state").addEventListener("change", () => { state.docOffset = 0; loadDocuments(); });
  $("doc-prev").addEventListener("click", () => { state.docOffset = Math.max(0, state.docOffset - state.docLimit); loadDocuments(); });
  $("doc-next").addEventListener("click", () => { state.docOffset += state.docLimit; loadDocuments(); });
  const zone = $("upload-form");
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    if (e.dataTransfer.files.length) upload(e.dataTransfer.files[0]);
  });
}

wire();
if (session.key) signIn(session.key); else $("api-key").focus();
