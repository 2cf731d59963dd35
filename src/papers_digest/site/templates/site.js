/* papers-digest: the only script of the site, and every page works without it (both languages show, the
   search box opens search.html, which says that searching needs JavaScript). It does two things:
   - the EN / 中文 / both switch: the choice is kept in localStorage and set on <html data-show> before the
     page is drawn (this file is loaded in <head>, not deferred), so the page never flickers;
   - on search.html, Pagefind's search over one index per month of published days, merged in the browser.
   Text from the index (model output among it) is only ever set as text: never as HTML. */
(function () {
  "use strict";
  var KEY = "papers-digest-lang";
  var CHOICES = ["en", "zh", "both"];
  var root = document.documentElement;

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
    if (keep) {
      try { window.localStorage.setItem(KEY, choice); } catch (e) { /* not kept; still shown */ }
    }
    var buttons = document.querySelectorAll(".lang-switch button");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].setAttribute("aria-pressed", String(buttons[i].getAttribute("data-show") === choice));
    }
  }

  show(stored(), false);

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
    if (results) searchPage(results);
  });

  // ------------------------------------------------------------------ search.html

  var STUB = "/pagefind-stub.html"; // the root index's one page, there only so the month indexes can merge into it
  var SHOWN = 20; // results shown: each one's excerpt is a download

  function searchPage(results) {
    var form = document.getElementById("search-form");
    var input = document.getElementById("q");
    var status = document.getElementById("search-status");
    var days = JSON.parse(results.getAttribute("data-days") || "[]");
    var loading = null;
    document.getElementById("search-nojs").hidden = true;
    form.hidden = false;

    function pagefind() {
      if (!loading) {
        var opened = performance.now();
        loading = import("./pagefind/pagefind.js").then(function (pf) {
          return pf.options({ excerptLength: 30 }).then(function () {
            // An index gone since this page was served (a page cached from before the indexes were merged by
            // month listed one per day) would fail every search once merged: each index's entry is fetched
            // first (then cached), and a day that is gone is looked for in its month's index instead, merged once.
            var merged = {};
            function merge(name, orMonth) {
              var url = new URL("pagefind/" + name + "/", document.baseURI).href;
              return fetch(url + "pagefind-entry.json").then(function (answer) {
                if (answer.ok && !merged[name]) {
                  merged[name] = true;
                  return pf.mergeIndex(url);
                }
                return !answer.ok && orMonth ? merge(name.slice(0, 7), false) : null;
              });
            }
            return Promise.all(days.map(function (name) { return merge(name, name.length > 7); }));
          }).then(function () {
            results.setAttribute("data-loaded-ms", String(Math.round(performance.now() - opened)));
            return pf;
          });
        });
      }
      return loading;
    }

    function run(term) {
      term = term.trim();
      results.textContent = "";
      if (!term) { status.textContent = ""; return; }
      status.textContent = "Searching…";
      var started = performance.now();
      pagefind().then(function (pf) {
        return pf.search(term);
      }).then(function (found) {
        if (input.value.trim() !== term) return null; // a newer search replaced this one
        return Promise.all(found.results.slice(0, SHOWN).map(function (r) { return r.data(); }));
      }).then(function (pages) {
        if (pages === null) return;
        pages = pages.filter(function (p) { return p.url !== STUB; });
        var ms = Math.round(performance.now() - started);
        results.setAttribute("data-ms", String(ms));
        status.textContent = pages.length + (pages.length === 1 ? " paper" : " papers") + " for “" + term + "”" +
          (pages.length === SHOWN ? " (the best " + SHOWN + "; add a word to narrow it down)" : "");
        pages.forEach(function (p) { results.appendChild(item(p)); });
      }).catch(function (error) {
        status.textContent = "Search is unavailable here (" + error + "). Serve the folder over HTTP: " +
          "browsers do not load scripts of modules from file://.";
      });
    }

    // As the reader types, Pagefind fetches the index chunks the words need (its `preload`, as its own UI does):
    // by the time the search is asked for, one chunk per month index is there, and the search is the search.
    // Not for a word's first letters (a prefix of one or two letters, or one Chinese character, spans many chunks
    // of every index, which then delay the search) nor while an input method composes (its Latin letters).
    var typed = null;
    input.addEventListener("input", function (event) {
      clearTimeout(typed);
      if (event.isComposing) return;
      typed = setTimeout(function () {
        var term = input.value.trim();
        var last = term.split(/\s+/).pop();
        var enough = /[\u3400-\u9fff]/.test(last) ? last.length >= 2 : last.length >= 3;
        if (enough) pagefind().then(function (pf) { return pf.preload(term); }).catch(function () { /* the search says */ });
      }, 60);
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      history.replaceState(null, "", "?q=" + encodeURIComponent(input.value.trim()));
      run(input.value);
    });
    var term = new URLSearchParams(window.location.search).get("q") || "";
    input.value = term;
    if (term) run(term);
    else pagefind().catch(function () { /* reported by the first search */ }); // load while the reader types
  }

  function item(page) {
    var li = document.createElement("li");
    var link = document.createElement("a");
    link.href = page.url.replace(/^\//, ""); // relative to search.html at the site's root: any base path works
    link.textContent = (page.meta && page.meta.title) || page.url;
    var heading = document.createElement("h2");
    heading.appendChild(link);
    li.appendChild(heading);
    var date = page.url.match(/^\/(\d{4}-\d{2}-\d{2})\//);
    if (date) {
      var meta = document.createElement("p");
      meta.className = "meta";
      meta.textContent = date[1] + " · arXiv " + page.url.replace(/^.*\/|\.html$/g, "");
      li.appendChild(meta);
    }
    var excerpt = document.createElement("p");
    excerpt.className = "excerpt";
    appendExcerpt(excerpt, page.excerpt || "");
    li.appendChild(excerpt);
    return li;
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
        target.appendChild(document.createTextNode(node.textContent));
      }
    });
  }
})();
