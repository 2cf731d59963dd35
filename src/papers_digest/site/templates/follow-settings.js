/* papers-digest: the settings of follow and mute, and the For you list (docs/site.md, "Follow and mute"). Loaded by
   follow.js on the For you page and when the header's For you is opened; it uses follow.js's choices and
   matching (window.papersFollow). Text is only ever set as text, never as HTML. */
(function () {
  "use strict";
  const F = window.papersFollow;
  if (!F) return;
  const { KINDS, SITE, el, ui, button } = F;
  let papers = null; // foryou.json, once asked for

  // Exported as a short text: each choice as `letter=value`, "&" between (a URL's query, so any text survives).
  function exported() {
    const query = new URLSearchParams();
    for (const kind in KINDS) F.prefs[kind].forEach(v => query.append(KINDS[kind], v));
    return query.toString();
  }

  function imported(text) {
    const query = new URLSearchParams(text.trim().replace(/^\?/, ""));
    const got = { names: F.prefs.names };
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
      if (!F.prefs[kind].length) continue;
      const list = el("ul");
      F.prefs[kind].forEach(v => {
        const [en, zh] = kind === "areas" ? F.areaNames(v) : [v, v];
        const drop = button("remove", el("span", "", "×"), el("span", "visually-hidden", ui("Remove " + en, "移除" + zh)));
        drop.firstChild.setAttribute("aria-hidden", "true");
        drop.addEventListener("click", () => { F.remove(kind, v); F.save(); });
        list.append(el("li", "", kind === "areas" ? ui(en, zh) : v, " ", drop));
      });
      box.append(el("p", "follow-kind", ui(...HEADS[kind])), list);
    }
    if (!box.firstChild) {
      box.append(el("p", "meta", ui("You follow nothing yet: ☆ next to an area or an author follows it.",
        "还没有关注：点击领域或作者旁的 ☆ 即可关注。")));
    }
  }

  // The settings: follow or mute a keyword, follow an author, what is followed, export, import and reset.
  function panel() {
    const term = el("input");
    Object.assign(term, { id: "follow-term", type: "text", autocomplete: "off" });
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
      F.add(kind, value);
      term.value = "";
      F.save();
      say((kind === "muted" ? "Muted: " : "Following: ") + value, (kind === "muted" ? "已屏蔽：" : "已关注：") + value);
    });
    const text = el("textarea");
    Object.assign(text, { id: "follow-text", rows: 2, spellcheck: false });
    const label = el("label", "", ui("Your choices as text: copy it to another browser, or paste one here to import it",
      "你的选择（文本）：复制到另一个浏览器，或粘贴到这里导入"));
    label.htmlFor = text.id;
    const actions = el("p", "follow-actions");
    const reset = () => {
      text.value = exported();
      for (const kind in KINDS) F.prefs[kind] = [];
      F.save();
      say("Reset: the text above is what you had; Import brings it back.", "已重置：上面的文本是原来的选择，点“导入”可恢复。");
    };
    const load = () => {
      const got = imported(text.value);
      if (!got) return say("Nothing to import: the text holds no a=, k=, u= or m=.", "没有可导入的内容：文本中没有 a=、k=、u= 或 m=。");
      F.prefs = got;
      F.save();
      say("Imported.", "已导入。");
    };
    const out = () => { text.value = exported(); text.select(); say("Exported: copy the text.", "已导出：请复制上面的文本。"); };
    [["Export", "导出", out], ["Import", "导入", load], ["Reset", "重置", reset]].forEach(([en, zh, act]) => {
      const b = button("", ui(en, zh));
      b.addEventListener("click", act);
      actions.append(b, " ");
    });
    const box = el("section", "follow-panel", form, el("div", "follow-lists"), label, text, actions, status);
    box.setAttribute("aria-label", "Follow and mute");
    return box;
  }

  // The For you page: the papers of foryou.json the reader follows, newest first, each with why.
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
      const unnamed = F.prefs.areas.filter(slug => !F.prefs.names[slug] && data.areas[slug]);
      unnamed.forEach(slug => { F.prefs.names[slug] = data.areas[slug]; }); // an imported area's names
      if (unnamed.length) document.querySelectorAll(".follow-lists").forEach(lists);
      list.textContent = "";
      data.papers.forEach(x => {
        const v = F.verdict(F.paper(x.areas, x.keywords, x.authors, [x.title, x.title_zh || ""]));
        if (!v.why.length) return;
        const link = el("a", "", el("span", x.title_zh ? "bi" : "", x.title));
        link.firstChild.lang = "en";
        if (x.title_zh) {
          const zh = el("span", "bi title-zh", x.title_zh);
          zh.lang = "zh-Hans";
          link.append(" ", zh);
        }
        link.href = new URL(x.path, SITE).href;
        list.append(el("li", "paper", el("h2", "", link), el("p", "meta", x.date + " · arXiv " + x.id), F.followed(v)));
      });
      const n = list.children.length;
      const any = Object.keys(KINDS).some(kind => kind !== "muted" && F.prefs[kind].length);
      if (!any) say("You follow nothing yet.", "还没有关注任何内容。");
      else say(n + (n === 1 ? " paper" : " papers") + " from " + data.since + " to " + data.until + " in what you follow.",
        data.since + " 至 " + data.until + " 共有 " + n + " 篇你关注的论文。");
    }).catch(error => say("The papers could not be read (" + error + ").", "无法读取论文列表。"));
  }

  // On the For you page, in its place; elsewhere in the header's For you, with a link to that page.
  const box = panel();
  const place = document.getElementById("follow-settings");
  const menu = document.querySelector("details.follow-menu");
  if (place) {
    place.append(box);
    const nojs = document.getElementById("foryou-nojs");
    if (nojs) nojs.hidden = true;
  } else if (menu) {
    const go = el("a", "", ui("Your papers of the latest days", "你关注的最新论文"));
    go.href = menu.dataset.href;
    box.prepend(el("p", "", go));
    menu.append(box);
  }
  const draw = () => { document.querySelectorAll(".follow-lists").forEach(lists); forYou(); };
  F.redrawn.push(draw);
  draw();
})();
