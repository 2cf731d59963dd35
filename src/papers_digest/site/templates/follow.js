/* papers-digest: follow and mute, in the reader's own browser (docs/site.md, "Follow and mute"). Deferred and
   optional: without it every page reads as it is. The reader's choices are kept in localStorage only (no account,
   nothing is sent anywhere). A day's cards carry what they are matched against: `data-keywords` (Hugging Face's, "|"
   between), the area chips (their slugs read from the links) and the authors' line (the names it shows, then
   those in its `data-authors`); foryou.json has the same of the latest days (site/foryou.py). Text is only ever set as text, never as HTML. */
(function () {
  "use strict";
  const KEY = "papers-digest-follow";
  const KINDS = { areas: "a", keywords: "k", authors: "u", muted: "m" }; // each kind's letter in the exported text
  const SITE = new URL(".", document.currentScript.src); // the site's root, where this file is
  const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/;
  let prefs = load();

  function load() {
    let saved = {};
    try { saved = JSON.parse(localStorage.getItem(KEY)) || {}; } catch (e) { /* storage off: nothing followed */ }
    const kept = { names: saved.names && typeof saved.names === "object" ? saved.names : {} };
    for (const kind in KINDS) {
      kept[kind] = Array.isArray(saved[kind]) ? saved[kind].filter(v => typeof v === "string" && v) : [];
    }
    return kept;
  }

  function save() {
    try { localStorage.setItem(KEY, JSON.stringify(prefs)); } catch (e) { /* not kept; shown on this page */ }
    refresh();
  }

  // ------------------------------------------------------------------ matching

  // Text as its words are compared: lower case, accents and punctuation left out, a plural's final s too
  // ("Vision-Language Models" and "vision language model" read the same).
  function words(text) {
    return " " + text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean).map(w => (w.length > 3 && /[^s]s$/.test(w) ? w.slice(0, -1) : w)).join(" ") + " ";
  }

  const split = (text, by) => (text ? text.split(by).filter(Boolean) : []);

  // A paper as it is matched: its areas' slugs, its authors, and its titles and Hugging Face's keywords.
  function paper(areas, keywords, authors, titles) {
    const texts = titles.concat(keywords);
    return { areas, authors: authors.map(words), low: texts.map(t => t.toLowerCase()), norm: texts.map(words) };
  }

  // A keyword is in a paper as whole words of its titles or keywords; a Chinese one as its characters in a row.
  function holds(p, term) {
    if (CJK.test(term)) return p.low.some(t => t.includes(term.toLowerCase()));
    const wanted = words(term);
    return wanted.trim() !== "" && p.norm.some(t => t.includes(wanted));
  }

  // Why a paper is followed ([English, Chinese] names), and the muted keywords it holds: a followed paper is
  // never folded.
  function verdict(p) {
    const why = [];
    prefs.areas.forEach(a => p.areas.includes(a) && why.push(areaNames(a)));
    prefs.keywords.forEach(k => holds(p, k) && why.push([k, k]));
    prefs.authors.forEach(a => p.authors.includes(words(a)) && why.push([a, a]));
    return { why, muted: why.length ? [] : prefs.muted.filter(k => holds(p, k)) };
  }

  const areaNames = slug => prefs.names[slug] || [slug, slug];

  const has = (kind, value) => prefs[kind].some(v => (kind === "areas" ? v === value : words(v) === words(value)));

  function add(kind, value) {
    if (value && !has(kind, value)) prefs[kind].push(value);
  }

  function remove(kind, value) {
    prefs[kind] = prefs[kind].filter(v => (kind === "areas" ? v !== value : words(v) !== words(value)));
  }

  // ------------------------------------------------------------------ the page

  function el(tag, className, ...children) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    e.append(...children);
    return e;
  }

  // The interface's words in English and Chinese: style.css shows the reader's language (templates/ui.html).
  function ui(en, zh) {
    const both = document.createDocumentFragment();
    [["en", en], ["zh-Hans", zh]].forEach(([lang, text]) => {
      const span = el("span", "ui", text);
      span.lang = lang;
      both.append(span);
    });
    return both;
  }

  function button(className, ...children) {
    const b = el("button", className, ...children);
    b.type = "button";
    return b;
  }

  const joined = (names, zh) => names.map(n => n[zh ? 1 : 0]).join(zh ? "、" : ", ");

  const followed = v => el("p", "why", ui("You follow: " + joined(v.why), "你关注：" + joined(v.why, true)));

  // A card marked: why it is followed, or folded to one line with what it was muted for, and a button to open it.
  function mark(li, v) {
    li.querySelectorAll(".why, .fold").forEach(e => e.remove());
    const text = li.querySelector(".card-text") || li;
    li.classList.toggle("followed", v.why.length > 0);
    li.classList.toggle("muted", v.muted.length > 0);
    if (v.why.length) text.prepend(followed(v));
    if (!v.muted.length) return li.classList.remove("open");
    const open = button("");
    const label = () => {
      const shown = li.classList.contains("open");
      open.textContent = "";
      open.append(ui(shown ? "Fold" : "Show", shown ? "收起" : "展开"));
      open.setAttribute("aria-expanded", String(shown));
    };
    open.addEventListener("click", () => { li.classList.toggle("open"); label(); });
    label();
    const why = ui("Muted: " + v.muted.join(", "), "已屏蔽：" + v.muted.join("、"));
    text.querySelector("h2").after(el("p", "fold", why, " ", open));
  }

  // An area chip's slug, from its link (topics/<slug>.html).
  function slugOf(a) {
    return (new URL(a.href).pathname.match(/\/topics\/([a-z0-9-]+)\.html$/) || [])[1];
  }

  function chipSlugs(li) {
    return [...li.querySelectorAll("p.topics a.area")].map(slugOf).filter(Boolean);
  }

  // A line's authors: the names its text shows, read once before the follow buttons go in, then the rest.
  const AUTHORS = new WeakMap();
  function authorsOf(line) {
    if (!line) return [];
    if (!AUTHORS.has(line)) {
      const node = line.firstChild;
      const text = node && node.nodeType === Node.TEXT_NODE ? node.textContent : "";
      const shown = text.replace(/\s*·\s*$/, "").replace(/\s*et al\.$/, "").split(", ").filter(Boolean);
      AUTHORS.set(line, [...shown, ...split(line.dataset.authors, "|")]);
    }
    return AUTHORS.get(line);
  }

  // The cards of a day: each marked; with `reorder` (as the page opens), the followed ones first, in their order.
  function cards(reorder) {
    document.querySelectorAll("ol.cards").forEach(list => {
      const first = [];
      list.querySelectorAll(":scope > li.paper").forEach(li => {
        const by = li.querySelector("p.authors");
        const title = li.querySelector("h2");
        const p = paper(chipSlugs(li), split(li.dataset.keywords, "|"), authorsOf(by), [title ? title.textContent : ""]);
        const v = verdict(p);
        mark(li, v);
        if (v.why.length) first.push(li);
      });
      if (reorder) list.prepend(...first);
    });
  }

  // A follow toggle: ☆, ★ when followed; its name says what it follows, in the reader's language.
  function toggle(kind, value, en, zh) {
    const b = button("follow-toggle", el("span", "", "☆"), el("span", "visually-hidden", ui("Follow " + en, "关注" + zh)));
    b.firstChild.setAttribute("aria-hidden", "true");
    Object.assign(b.dataset, { kind, value, en, zh });
    return b;
  }

  const names = (e, shown) => ["en", "zh-Hans"].map(lang => {
    const span = e.querySelector(shown + "[lang=" + lang + "]");
    return (span || e).textContent.trim();
  });

  // Toggles next to each area's link (its chips, the area index, the trends), an area page's title, each author
  // named on a paper's line: the links stay links.
  function decorate() {
    document.querySelectorAll("a.area").forEach(a => {
      const slug = slugOf(a);
      if (slug) a.after(toggle("areas", slug, ...names(a, ".ui")));
    });
    document.querySelectorAll("h1[data-area]").forEach(h => h.append(" ", toggle("areas", h.dataset.area, ...names(h, ".bi"))));
    document.querySelectorAll("p.authors").forEach(line => {
      const node = line.firstChild;
      if (!node || node.nodeType !== Node.TEXT_NODE) return;
      const text = node.textContent;
      const parts = [];
      let at = 0;
      for (const name of authorsOf(line)) { // the names the line shows, in its order
        if (!text.startsWith(name, at)) break;
        parts.push(name, toggle("authors", name, name, name));
        at += name.length;
        if (!text.startsWith(", ", at)) break;
        parts.push(", ");
        at += 2;
      }
      if (at) node.replaceWith(...parts, text.slice(at));
    });
  }

  function states() {
    document.querySelectorAll("button.follow-toggle").forEach(b => {
      const on = has(b.dataset.kind, b.dataset.value);
      b.setAttribute("aria-pressed", String(on));
      b.firstChild.textContent = on ? "★" : "☆";
    });
  }

  document.addEventListener("click", event => {
    const b = event.target.closest && event.target.closest("button.follow-toggle");
    if (!b) return;
    const { kind, value, en, zh } = b.dataset;
    if (has(kind, value)) remove(kind, value);
    else add(kind, value);
    if (kind === "areas") prefs.names[value] = [en, zh];
    save();
  });

  // ------------------------------------------------------------------ the settings, loaded when asked for

  // The settings and the For you list are in follow-settings.js, loaded on the For you page and when the header's
  // For you is opened: a page that only shows the marks does not load them.
  function settings() {
    const link = document.querySelector("header.site a.foryou");
    const load = () => {
      if (document.querySelector("script[data-follow-settings]")) return;
      const script = el("script");
      script.src = new URL("follow-settings.js", SITE).href;
      script.dataset.followSettings = "";
      document.head.append(script);
    };
    if (document.getElementById("follow-settings")) {
      if (link) link.hidden = false;
      return load();
    }
    if (!link) return;
    const menu = el("details", "follow-menu", el("summary", "", ui("For you", "为你推荐")));
    menu.dataset.href = link.href;
    menu.addEventListener("toggle", load);
    link.replaceWith(menu);
  }

  const redrawn = []; // what follow-settings.js draws again after a change

  // Every mark of the page anew; the cards in a new order only as the page opens, not under the reader's click.
  function refresh(reorder) {
    states();
    cards(Boolean(reorder));
    redrawn.forEach(draw => draw());
  }

  // What follow-settings.js uses: the choices, matching, and the page's pieces.
  window.papersFollow = {
    KINDS, SITE, redrawn, save, paper, verdict, add, remove, areaNames, el, ui, button, followed,
    get prefs() { return prefs; },
    set prefs(value) { prefs = value; },
  };

  decorate();
  settings();
  refresh(true);
  window.addEventListener("storage", event => {
    if (event.key === KEY) { prefs = load(); refresh(); }
  });
})();
