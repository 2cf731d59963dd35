/* papers-digest: follow and mute, in the reader's own browser (docs/site.md, "Follow and mute"). Deferred and
   optional: without it every page reads as it is. The reader's choices are kept in localStorage only (no account,
   nothing is sent anywhere). A day's cards carry what they are matched against: `data-areas` (the areas' slugs),
   `data-keywords` (Hugging Face's, "|" between) and, on the authors' line, `data-authors`; foryou.json has the
   same of the latest days (site/foryou.py). Text is only ever set as text, never as HTML. */
(function () {
  "use strict";
  const KEY = "papers-digest-follow";
  const KINDS = { areas: "a", keywords: "k", authors: "u", muted: "m" }; // each kind's letter in the exported text
  const SITE = new URL(".", document.currentScript.src); // the site's root, where this file is
  const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/;
  let prefs = load();
  let papers = null; // foryou.json, once fetched

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

  // The cards of a day: each marked; with `reorder` (as the page opens), the followed ones first, in their order.
  function cards(reorder) {
    document.querySelectorAll("ol.cards").forEach(list => {
      const first = [];
      list.querySelectorAll(":scope > li.paper").forEach(li => {
        const by = li.querySelector("p.authors");
        const title = li.querySelector("h2");
        const p = paper(split(li.dataset.areas, " "), split(li.dataset.keywords, "|"),
          split(by && by.dataset.authors, "|"), [title ? title.textContent : ""]);
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
      const slug = (new URL(a.href).pathname.match(/\/topics\/([a-z0-9-]+)\.html$/) || [])[1];
      if (slug) a.after(toggle("areas", slug, ...names(a, ".ui")));
    });
    document.querySelectorAll("h1[data-area]").forEach(h => h.append(" ", toggle("areas", h.dataset.area, ...names(h, ".bi"))));
    document.querySelectorAll("p.authors[data-authors]").forEach(line => {
      const node = line.firstChild;
      if (!node || node.nodeType !== Node.TEXT_NODE) return;
      const text = node.textContent;
      const parts = [];
      let at = 0;
      for (const name of split(line.dataset.authors, "|")) { // the names the line shows, in its order
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

  // ------------------------------------------------------------------ the settings

  // Exported as a short text: each choice as `letter=value`, "&" between (a URL's query, so any text survives).
  function exported() {
    const query = new URLSearchParams();
    for (const kind in KINDS) prefs[kind].forEach(v => query.append(KINDS[kind], v));
    return query.toString();
  }

  function imported(text) {
    const query = new URLSearchParams(text.trim().replace(/^\?/, ""));
    const got = { names: prefs.names };
    let count = 0;
    for (const kind in KINDS) {
      got[kind] = [];
      query.getAll(KINDS[kind]).forEach(v => {
        v = v.trim();
        if (v && (kind !== "areas" || /^[a-z0-9-]+$/.test(v)) && !got[kind].includes(v)) got[kind].push(v);
      });
      count += got[kind].length;
    }
    return count ? got : null;
  }

  const HEADS = { areas: ["Areas", "领域"], keywords: ["Keywords", "关键词"], authors: ["Authors", "作者"],
    muted: ["Muted keywords", "屏蔽的关键词"] };

  // What is followed and muted, each with a button that removes it.
  function lists(box) {
    box.textContent = "";
    for (const kind in KINDS) {
      if (!prefs[kind].length) continue;
      const list = el("ul");
      prefs[kind].forEach(v => {
        const [en, zh] = kind === "areas" ? areaNames(v) : [v, v];
        const drop = button("remove", el("span", "", "×"), el("span", "visually-hidden", ui("Remove " + en, "移除" + zh)));
        drop.firstChild.setAttribute("aria-hidden", "true");
        drop.addEventListener("click", () => { remove(kind, v); save(); });
        list.append(el("li", "", kind === "areas" ? ui(en, zh) : v, " ", drop));
      });
      box.append(el("p", "follow-kind", ui(...HEADS[kind])), list);
    }
    if (!box.firstChild) {
      box.append(el("p", "meta", ui("You follow nothing yet: ☆ next to an area or an author follows it.",
        "还没有关注：点击领域或作者旁的 ☆ 即可关注。")));
    }
  }

  let panels = 0;

  // The settings: follow or mute a keyword, follow an author, what is followed, export, import and reset.
  function panel() {
    const n = ++panels;
    const term = el("input");
    Object.assign(term, { id: "follow-term-" + n, type: "text", autocomplete: "off" });
    const form = el("form", "follow-add", el("label", "", ui("A keyword or an author", "关键词或作者")), " ", term);
    form.firstChild.htmlFor = term.id;
    [["keywords", "Follow the keyword", "关注关键词"], ["authors", "Follow the author", "关注作者"],
      ["muted", "Mute the keyword", "屏蔽关键词"]].forEach(([kind, en, zh]) => {
      const b = el("button", "", ui(en, zh));
      b.value = kind;
      form.append(" ", b);
    });
    const status = el("p", "meta follow-status");
    status.setAttribute("role", "status");
    const say = (en, zh) => { status.textContent = ""; status.append(ui(en, zh)); };
    form.addEventListener("submit", event => {
      event.preventDefault();
      const kind = (event.submitter && event.submitter.value) || "keywords";
      const value = term.value.trim();
      if (!value) return;
      add(kind, value);
      term.value = "";
      save();
      say((kind === "muted" ? "Muted: " : "Following: ") + value, (kind === "muted" ? "已屏蔽：" : "已关注：") + value);
    });
    const text = el("textarea");
    Object.assign(text, { id: "follow-text-" + n, rows: 2, spellcheck: false });
    const label = el("label", "", ui("Your choices as text: copy it to another browser, or paste one here to import it",
      "你的选择（文本）：复制到另一个浏览器，或粘贴到这里导入"));
    label.htmlFor = text.id;
    const actions = el("p", "follow-actions");
    [["Export", "导出", () => { text.value = exported(); text.select(); say("Exported: copy the text.", "已导出：请复制上面的文本。"); }],
      ["Import", "导入", () => {
        const got = imported(text.value);
        if (!got) return say("Nothing to import: the text holds no a=, k=, u= or m=.", "没有可导入的内容：文本中没有 a=、k=、u= 或 m=。");
        prefs = got;
        save();
        say("Imported.", "已导入。");
      }],
      ["Reset", "重置", () => {
        text.value = exported();
        for (const kind in KINDS) prefs[kind] = [];
        save();
        say("Reset: the text above is what you had; Import brings it back.", "已重置：上面的文本是原来的选择，点“导入”可恢复。");
      }]].forEach(([en, zh, act]) => {
      const b = button("", ui(en, zh));
      b.addEventListener("click", act);
      actions.append(b, " ");
    });
    return el("section", "follow-panel", form, el("div", "follow-lists"), label, text, actions, status);
  }

  // The settings: on the For you page in their place; on every other page folded under the header's For you,
  // with a link to that page.
  function settings() {
    const link = document.querySelector("header.site a.foryou");
    const place = document.getElementById("follow-settings");
    const box = panel();
    box.setAttribute("aria-label", "Follow and mute");
    if (place) {
      if (link) link.hidden = false;
      return place.append(box);
    }
    if (!link) return;
    const go = el("a", "", ui("Your papers of the latest days", "你关注的最新论文"));
    go.href = link.href;
    box.prepend(el("p", "", go));
    link.replaceWith(el("details", "follow-menu", el("summary", "", ui("For you", "为你推荐")), box));
  }

  // ------------------------------------------------------------------ For you

  function forYou() {
    const list = document.getElementById("foryou");
    if (!list) return;
    const status = document.getElementById("foryou-status");
    const say = (en, zh) => { status.textContent = ""; status.append(ui(en, zh)); };
    if (!papers) {
      papers = fetch(new URL(list.dataset.src, SITE).href).then(answer => {
        if (!answer.ok) throw new Error(list.dataset.src + ": HTTP " + answer.status);
        return answer.json();
      });
    }
    papers.then(data => {
      const unnamed = prefs.areas.filter(slug => !prefs.names[slug] && data.areas[slug]);
      unnamed.forEach(slug => { prefs.names[slug] = data.areas[slug]; }); // an imported area's names
      if (unnamed.length) document.querySelectorAll(".follow-lists").forEach(lists);
      list.textContent = "";
      data.papers.forEach(x => {
        const v = verdict(paper(x.areas, x.keywords, x.authors, [x.title, x.title_zh || ""]));
        if (!v.why.length) return;
        const link = el("a", "", el("span", x.title_zh ? "bi" : "", x.title));
        link.firstChild.lang = "en";
        if (x.title_zh) {
          const zh = el("span", "bi title-zh", x.title_zh);
          zh.lang = "zh-Hans";
          link.append(" ", zh);
        }
        link.href = new URL(x.path, SITE).href;
        list.append(el("li", "paper", el("h2", "", link), el("p", "meta", x.date + " · arXiv " + x.id), followed(v)));
      });
      const n = list.children.length;
      const span = " from " + data.since + " to " + data.until;
      const any = Object.keys(KINDS).some(kind => kind !== "muted" && prefs[kind].length);
      if (!any) say("You follow nothing yet.", "还没有关注任何内容。");
      else say(n + (n === 1 ? " paper" : " papers") + span + " in what you follow.",
        data.since + " 至 " + data.until + " 共有 " + n + " 篇你关注的论文。");
    }).catch(error => say("The papers could not be read (" + error + ").", "无法读取论文列表。"));
  }

  // Every mark of the page anew; the cards in a new order only as the page opens, not under the reader's click.
  function refresh(reorder) {
    states();
    cards(Boolean(reorder));
    document.querySelectorAll(".follow-lists").forEach(lists);
    forYou();
  }

  const nojs = document.getElementById("foryou-nojs");
  if (nojs) nojs.hidden = true;
  decorate();
  settings();
  refresh(true);
  window.addEventListener("storage", event => {
    if (event.key === KEY) { prefs = load(); refresh(); }
  });
})();
