/* papers-digest: the site's script (follow.js, deferred, adds follow and mute), and every page works without it
   (both languages show, the search box opens search.html, which says that searching needs JavaScript). It does
   three things:
   - the EN / 中文 / both switch: the choice is kept in localStorage and set on <html data-show> (and its `lang`)
     before the page is drawn (this file is loaded in <head>, not deferred), so the page never flickers;
   - a thumbnail that does not load is taken out, so its card reads as if it had none;
   - Pagefind's search over its indexes of each month of published days, one in English and one in Chinese,
     merged in the browser: on search.html, and from the box on every other page, whose results show on that
     page (docs/site.md, "Search").
   Text from the index (model output among it) is only ever set as text: never as HTML. */
(function () {
  "use strict";
  var KEY = "papers-digest-lang";
  var CHOICES = ["en", "zh", "both"];
  var root = document.documentElement;
  // site.js sits at the site's root: the search's files and the results' links are relative to it, whatever page
  var SITE = new URL(".", (document.currentScript && document.currentScript.src) || document.baseURI);

  function stored() {
    try {
      var value = window.localStorage.getItem(KEY);
      return CHOICES.indexOf(value) >= 0 ? value : "both";
    } catch (e) {
      return "both"; // storage off (private mode, file:// in some browsers): both languages
    }
  }

  function show(choice, keep) {
    root.setAttribute("data-show", choice);
    root.setAttribute("lang", choice === "zh" ? "zh-Hans" : "en"); // the page's language: the interface's words follow it
    if (keep) {
      try { window.localStorage.setItem(KEY, choice); } catch (e) { /* not kept; still shown */ }
    }
    var buttons = document.querySelectorAll(".lang-switch button");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].setAttribute("aria-pressed", String(buttons[i].getAttribute("data-show") === choice));
    }
  }

  show(stored(), false);

  // A thumbnail that cannot load (Hugging Face's images offline, a CDN down) leaves no box: an image's error does
  // not bubble, so it is caught on its way down, from the start (this file runs before the body is parsed);
  // style.css blanks a broken one until then, and without script.
  document.addEventListener("error", function (event) {
    var image = event.target;
    if (image.tagName === "IMG" && image.classList.contains("thumb")) image.remove();
  }, true);

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.querySelector(".lang-switch");
    if (box) {
      box.hidden = false;
      box.addEventListener("click", function (event) {
        var button = event.target.closest("button[data-show]");
        if (button) show(button.getAttribute("data-show"), true);
      });
      show(stored(), false);
    }
    var results = document.getElementById("search-results");
    var header = document.querySelector("header.site form.search");
    if (results) searchPage(results, header);
    else if (header) boxSearch(header);
  });

  // ------------------------------------------------------------------ search

  var STUB = "pagefind-stub.html"; // the root index's one page, there only so the month indexes can merge into it
  // Results shown at once, then as many more at each "More results": each one's excerpt is a download (a
  // fragment), and 20 at once made a word on most pages answer in 257-282 ms against 196-226 ms for 10.
  var SHOWN = 10;
  // A match of the arXiv id (the pages' `arxiv` meta) weighs above one in the title, which weighs 5 (Pagefind's).
  var RANKING = { metaWeights: { title: 5, arxiv: 10 } };
  // Above this many pages with every word, English results come in the exact search's order (a match in the title
  // first, then where the words come earliest), as Chinese ones do: Pagefind's ranking of thousands of pages
  // that each have the word costs more than the 300 ms a search may take (docs/performance.md, "Search").
  var RANKED_MAX = 2000;
  // A search with a Chinese (or Japanese, Korean) character is one of the Chinese indexes, others of the English.
  // In the Chinese indexes each such character is a word (site/search.py, `spaced`): so is it in a search.
  var CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/;
  var CJK_EACH = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/g;
  // the spaces around a CJK character or a full-width sign, as the Chinese indexes' text has them
  var CJK_SPACES = /\s+(?=[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff00-\uffef])|(?<=[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff00-\uffef])\s+/g;

  function languageOf(term) { return CJK.test(term) ? "zh" : "en"; }

  function spaced(word) { return word.replace(CJK_EACH, " $& ").trim().replace(/\s+/g, " "); }

  function unspaced(text) { return text.replace(CJK_SPACES, ""); }

  // The words searched: an arXiv id with its version ("2504.00999v2") is its id; words without a letter or digit
  // are none (Pagefind drops them).
  function wordsOf(term) {
    return term.replace(/\b(\d{4}\.\d{4,5})v\d+\b/g, "$1").split(/\s+/).filter(function (w) {
      return /[\p{L}\p{N}]/u.test(w);
    });
  }

  // Pagefind with every month's index merged, one per language, each loaded once per page when first needed.
  // `months` gives the months' names (a promise: search.html lists them, other pages fetch search.json).
  //
  // Pagefind answers a word no page has with the pages of the longest word of the index it starts with
  // ("xyzzy" finds the pages with an "x"), in each month's index on its own (its search has no option against
  // it). So a page is a result only when Pagefind's exact search (a word in quotes, which never does that) finds
  // each word on it: an English word as a word of the page, stemmed; a Chinese word as its characters in a row.
  // English results are in the order of Pagefind's own search (relevance), up to RANKED_MAX pages. Chinese ones
  // are not, nor English beyond it: Pagefind's ranking weighs every page that has the words (7,300 pages of a
  // year for a word as common as 方法 or `model`, 0.2-0.6 s), so they come in the exact search's order: a match in
  // the title first, then the pages where the words come earliest.
  function searcher(months) {
    var pagefind = null;
    var engines = {};
    var self = {
      loadedMs: null,
      load: function (lang) {
        lang = lang || "en";
        if (!engines[lang]) {
          var opened = performance.now();
          if (!pagefind) {
            // Pagefind's runtime and its stub index first: the two languages' engines share its WebAssembly,
            // which the first engine loads (two loading it at once would each set it up)
            pagefind = import(new URL("pagefind/pagefind.js", SITE).href).then(function (pf) {
              return pf.options({ excerptLength: 30 }).then(function () { return pf.search(""); }).then(function () {
                return pf;
              });
            });
          }
          var urls = months().then(function (names) { return present(names, lang); });
          engines[lang] = Promise.all([pagefind, urls]).then(function (got) {
            var engine = lang === "en" ? got[0] : got[0].createInstance();
            return Promise.all(got[1].map(function (url) {
              return engine.mergeIndex(url, { language: lang, excerptLength: 30, ranking: RANKING });
            })).then(function () {
              if (self.loadedMs === null) self.loadedMs = Math.round(performance.now() - opened);
              return engine;
            });
          });
        }
        return engines[lang];
      },
      preload: function (term) {
        var lang = languageOf(term);
        return self.load(lang).then(function (engine) { return engine.preload(asked(term).join(" ")); });
      },
      // The pages found for `term`, best first: {results (Pagefind's: each one's page is loaded by its data()),
      // words, lang}; null when `current()` moved on meanwhile.
      search: function (term, current) {
        var lang = languageOf(term);
        var words = asked(term);
        return self.load(lang).then(function (engine) {
          return Promise.all(words.map(function (w) { return engine.search("\"" + w + "\""); })).then(function (exact) {
            var fewest = Math.min.apply(null, exact.map(function (e) { return e.results.length; }));
            // the ranking search only when every word is on some page, for English, and not for a word on most
            // pages of the archive: its ranking weighs them all (a year's `model`: 0.2-0.3 s of the search)
            var rank = exact.length && fewest > 0 && lang === "en" && fewest <= RANKED_MAX;
            return Promise.resolve(rank ? engine.search(words.join(" ")) : null).then(function (ranked) {
              return { exact: exact, ranked: ranked };
            });
          });
        }).then(function (got) {
          if (current() !== term) return null; // a newer search replaced this one
          var found = [];
          if (got.ranked) found = got.ranked.results;
          else if (got.exact.length) found = titleThenEarliest(got.exact[0].results);
          got.exact.forEach(function (exact) {
            var on = new Set(exact.results.map(function (r) { return r.id; }));
            found = found.filter(function (r) { return on.has(r.id); });
          });
          return { results: found, words: wordsOf(term), lang: lang };
        });
      }
    };
    return self;
  }

  // Exact results, a match in the title first (Pagefind scores it by the field's weight, a match in the text 1),
  // then by where on the page the words first come.
  function titleThenEarliest(results) {
    return results.slice().sort(function (a, b) { return b.score - a.score || (a.words[0] || 0) - (b.words[0] || 0); });
  }

  // The words of `term` as its language's indexes have them.
  function asked(term) {
    var words = wordsOf(term);
    return languageOf(term) === "zh" ? words.map(spaced) : words;
  }

  // The indexes of `lang` of these months, as URLs; an index gone since this page was served is left out (merged,
  // it would fail every search). A name of a day (a page cached from when each day had an index) is its month's.
  // Each index's entry is fetched while Pagefind itself loads.
  function present(names, lang) {
    var urls = names.map(function (name) {
      var url = new URL("pagefind/" + name.slice(0, 7) + "/" + lang + "/", SITE).href;
      return fetch(url + "pagefind-entry.json").then(function (answer) { return answer.ok ? url : null; });
    });
    return Promise.all(urls).then(function (found) {
      return found.filter(function (url, i) { return url && found.indexOf(url) === i; });
    });
  }

  // As the reader types, Pagefind is loaded and fetches the index chunks the words need (its `preload`, as its
  // own UI does): by the time the search is asked for, one chunk per month index is there, and the search is
  // the search. Not for a word's first letters (a prefix of one or two letters, or one Chinese character, spans
  // many chunks of every index, which then delay the search) nor while an input method composes (its letters).
  function preloadAsTyped(input, search) {
    var typed = null;
    input.addEventListener("input", function (event) {
      clearTimeout(typed);
      search.load(languageOf(input.value)).catch(function () { /* the search says */ });
      if (event.isComposing) return;
      typed = setTimeout(function () {
        var term = input.value.trim();
        var last = term.split(/\s+/).pop();
        var enough = CJK.test(last) ? last.length >= 2 : last.length >= 3;
        if (enough) search.preload(term).catch(function () { /* the search says */ });
      }, 60);
    });
  }

  // The text of a line in English, then in Chinese: the status line and the button say everything in both.
  function say(target, en, zh) {
    target.textContent = "";
    var english = document.createElement("span");
    english.lang = "en";
    english.textContent = en;
    var chinese = document.createElement("span");
    chinese.lang = "zh-Hans";
    chinese.textContent = zh;
    target.appendChild(english);
    target.appendChild(document.createTextNode(" "));
    target.appendChild(chinese);
  }

  // Search `input`'s words and show the best SHOWN pages in `results`, the count and any error in `status`,
  // and a "More results" button after `results` while there are more.
  function showResults(search, input, results, status) {
    var term = input.value.trim();
    var more = results.nextElementSibling;
    if (!more || !more.classList.contains("more-results")) {
      more = document.createElement("button");
      more.type = "button";
      more.className = "more-results";
      results.parentNode.insertBefore(more, results.nextSibling);
    }
    more.hidden = true;
    more.onclick = null;
    results.textContent = "";
    results.removeAttribute("data-ms");
    if (!term) { status.textContent = ""; return; }
    say(status, "Searching…", "搜索中…");
    var started = performance.now();
    var id = (results.searchId = (results.searchId || 0) + 1); // a later search's results replace these
    search.search(term, function () { return input.value.trim(); }).then(function (found) {
      if (found === null) return null;
      var next = 0;
      function page() { // the next SHOWN results, the stub left out; then the count and the button
        var slice = found.results.slice(next, next + SHOWN);
        next += slice.length;
        return Promise.all(slice.map(function (r) { return r.data(); })).then(function (pages) {
          if (results.searchId !== id) return;
          pages.forEach(function (p) {
            if (sitePath(p.url) !== STUB) results.appendChild(item(p, found.lang === "zh" ? found.words : null));
          });
          var shown = results.children.length;
          if (!shown) {
            say(status, "No paper has “" + term + "”.", "没有论文含有“" + term + "”。");
          } else if (next < found.results.length) {
            say(status, "The best " + shown + " papers for “" + term + "”; more below",
              "“" + term + "”的前 " + shown + " 篇论文，下面还有");
          } else {
            say(status, shown + (shown === 1 ? " paper" : " papers") + " for “" + term + "”",
              "共 " + shown + " 篇论文含有“" + term + "”");
          }
          say(more, "More results", "更多结果");
          more.hidden = next >= found.results.length;
        });
      }
      more.onclick = function () {
        more.disabled = true;
        page().then(function () { more.disabled = false; });
      };
      return page().then(function () {
        results.setAttribute("data-loaded-ms", String(search.loadedMs));
        results.setAttribute("data-ms", String(Math.round(performance.now() - started)));
      });
    }).catch(function (error) {
      say(status, "Search is unavailable here (" + error + "). Serve the folder over HTTP: " +
        "browsers do not load scripts of modules from file://.", "此处无法搜索：请通过 HTTP 访问本站。");
    });
  }

  // search.html: Pagefind is loaded as the page opens, so it is ready by the time the reader has typed.
  function searchPage(results, header) {
    var form = document.getElementById("search-form");
    var input = document.getElementById("q");
    var status = document.getElementById("search-status");
    // data-days: a page served before the indexes had a language (the same months, or days, by name)
    var months = JSON.parse(results.getAttribute("data-months") || results.getAttribute("data-days") || "[]");
    var search = searcher(function () { return Promise.resolve(months); });
    document.getElementById("search-nojs").hidden = true;
    form.hidden = false;
    preloadAsTyped(input, search);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      history.replaceState(null, "", "?q=" + encodeURIComponent(input.value.trim()));
      showResults(search, input, results, status);
    });
    if (header) { // the header's box on this page searches here too
      header.addEventListener("submit", function (event) {
        event.preventDefault();
        input.value = header.querySelector("input").value;
        form.requestSubmit();
      });
    }
    var term = new URLSearchParams(window.location.search).get("q") || "";
    input.value = term;
    search.load(languageOf(term)).then(function () {
      results.setAttribute("data-loaded-ms", String(search.loadedMs));
    }).catch(function () { /* reported by the first search */ });
    if (term) showResults(search, input, results, status);
  }

  // The box on every other page: Pagefind loads on the reader's first key, and Enter shows the results on
  // this page, above its own content, with a link to the same search on search.html (Close or Escape hide
  // them). A site without search.json (or a failed load) leaves the box as it is without script: it opens
  // search.html.
  function boxSearch(form) {
    var input = form.querySelector("input");
    var search = searcher(function () {
      return fetch(new URL("search.json", SITE).href).then(function (answer) {
        if (!answer.ok) throw new Error("search.json: HTTP " + answer.status);
        return answer.json();
      }).then(function (index) { return index.months; });
    });
    var panel = null;
    preloadAsTyped(input, search);
    form.addEventListener("submit", function (event) {
      var term = input.value.trim();
      if (!term) return; // search.html, empty, as without script
      event.preventDefault();
      search.load(languageOf(term)).then(function () {
        if (!panel) panel = resultsPanel(form);
        panel.hidden = false;
        panel.querySelector("a.all").href = new URL("search.html?q=" + encodeURIComponent(term), SITE).href;
        showResults(search, input, panel.querySelector("ol"), panel.querySelector("[role=status]"));
      }, function () {
        window.location.href = new URL("search.html?q=" + encodeURIComponent(term), SITE).href;
      });
    });
    input.addEventListener("keydown", function (event) { // Escape closes the results, as their Close button does
      if (event.key === "Escape" && panel) panel.hidden = true;
    });
  }

  function resultsPanel(form) {
    var panel = document.createElement("section");
    panel.className = "search-panel";
    panel.setAttribute("aria-label", "Search results");
    var status = document.createElement("p");
    status.id = "search-status";
    status.className = "meta";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    var list = document.createElement("ol");
    list.id = "search-results";
    list.className = "search-results";
    var foot = document.createElement("p");
    foot.className = "meta";
    var all = document.createElement("a");
    all.className = "all";
    all.textContent = "Open this search on the search page";
    var close = document.createElement("button");
    close.type = "button";
    close.textContent = "Close";
    close.addEventListener("click", function () { panel.hidden = true; form.querySelector("input").focus(); });
    foot.appendChild(all);
    foot.appendChild(document.createTextNode(" · "));
    foot.appendChild(close);
    panel.appendChild(status);
    panel.appendChild(list);
    panel.appendChild(foot);
    var main = document.querySelector("main");
    main.insertBefore(panel, main.firstChild);
    return panel;
  }

  // A result's page, as a path under the site's root ("2025-04-03/2504.01014.html"): Pagefind gives the root
  // index's pages as "/…" and a merged index's as a full URL (from where the index was fetched).
  function sitePath(url) {
    var path = new URL(url, SITE).pathname;
    return path.indexOf(SITE.pathname) === 0 ? path.slice(SITE.pathname.length) : path.replace(/^\//, "");
  }

  // One result: its title linking to the page, the day and arXiv id, and the excerpt with the words marked:
  // Pagefind's, or, from the Chinese indexes (`words` given), around the first of the words in the page's text.
  function item(page, words) {
    var path = sitePath(page.url);
    var li = document.createElement("li");
    var link = document.createElement("a");
    link.href = new URL(path, SITE).href; // from the site's root: any base path works
    link.textContent = unspaced((page.meta && page.meta.title) || path);
    var heading = document.createElement("h2");
    heading.appendChild(link);
    li.appendChild(heading);
    var date = path.match(/^(\d{4}-\d{2}-\d{2})\/([^/]+)\.html$/);
    if (date) {
      var meta = document.createElement("p");
      meta.className = "meta";
      meta.textContent = date[1] + " · arXiv " + date[2];
      li.appendChild(meta);
    }
    var excerpt = document.createElement("p");
    excerpt.className = "excerpt";
    if (!(words && markWords(excerpt, unspaced(page.content), words))) appendExcerpt(excerpt, page.excerpt || "");
    li.appendChild(excerpt);
    return li;
  }

  // About 120 characters of `text` around the first of `words` it holds as written (case aside), each of the
  // words marked; false when it holds none as written (then Pagefind's excerpt is shown).
  function markWords(target, text, words) {
    var lower = text.toLowerCase();
    var wanted = words.map(function (w) { return w.toLowerCase(); });
    var first = -1;
    wanted.forEach(function (w) {
      var at = lower.indexOf(w);
      if (at >= 0 && (first < 0 || at < first)) first = at;
    });
    if (first < 0) return false;
    var start = Math.max(0, first - 40);
    var end = Math.min(text.length, first + 80);
    var at = start;
    while (at < end) {
      var hit = null;
      wanted.forEach(function (w) {
        var i = lower.indexOf(w, at);
        if (i >= 0 && i < end && (!hit || i < hit[0])) hit = [i, w.length];
      });
      var stop = hit ? hit[0] : end;
      target.appendChild(document.createTextNode((at === start && start > 0 ? "…" : "") + text.slice(at, stop)));
      if (!hit) break;
      var mark = document.createElement("mark");
      mark.textContent = text.slice(hit[0], hit[0] + hit[1]);
      target.appendChild(mark);
      at = hit[0] + hit[1];
    }
    if (end < text.length) target.appendChild(document.createTextNode("…"));
    return true;
  }

  // Pagefind's excerpt is HTML: escaped text with <mark> around the matches. Parsed in an inert document
  // and copied as text nodes and <mark> elements only, so nothing in it can run or load.
  function appendExcerpt(target, html) {
    var body = new DOMParser().parseFromString("<body>" + html, "text/html").body;
    body.childNodes.forEach(function (node) {
      if (node.nodeName === "MARK") {
        var mark = document.createElement("mark");
        mark.textContent = node.textContent;
        target.appendChild(mark);
      } else {
        target.appendChild(document.createTextNode(unspaced(node.textContent)));
      }
    });
  }
})();
