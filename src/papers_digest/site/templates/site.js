/* papers-digest: the only script of the site, and every page works without it (both languages show, the
   search box opens search.html, which says that searching needs JavaScript). It does two things:
   - the EN / 中文 / both switch: the choice is kept in localStorage and set on <html data-show> (and its `lang`)
     before the page is drawn (this file is loaded in <head>, not deferred), so the page never flickers;
   - Pagefind's search over one index per month of published days, merged in the browser: on search.html,
     and from the box on every other page, whose results show on that page (docs/site.md, "Search").
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

  // Pagefind with every month's index merged, loaded once per page, when first needed. `months` gives the
  // month indexes' names (a promise: search.html lists them, other pages fetch search.json).
  function searcher(months) {
    var loading = null;
    var self = {
      loadedMs: null,
      load: function () {
        if (!loading) {
          var opened = performance.now();
          // An index gone since this page was served (a page cached from before the indexes were merged by
          // month listed one per day) would fail every search once merged: each index's entry is fetched first
          // (then cached), while Pagefind itself loads, and a day that is gone is looked for in its month's index.
          var found = function (name, orMonth) {
            var url = new URL("pagefind/" + name + "/", SITE).href;
            return fetch(url + "pagefind-entry.json").then(function (answer) {
              return answer.ok ? url : orMonth ? found(name.slice(0, 7), false) : null;
            });
          };
          var indexes = months().then(function (names) {
            return Promise.all(names.map(function (name) { return found(name, name.length > 7); }));
          });
          loading = import(new URL("pagefind/pagefind.js", SITE).href).then(function (pf) {
            return Promise.all([pf.options({ excerptLength: 30 }), indexes]).then(function (got) {
              var urls = got[1].filter(function (url, i) { return url && got[1].indexOf(url) === i; });
              return Promise.all(urls.map(function (url) { return pf.mergeIndex(url); }));
            }).then(function () {
              self.loadedMs = Math.round(performance.now() - opened);
              return pf;
            });
          });
        }
        return loading;
      },
      // Pagefind's results for `term`, best first (each one's page is loaded by its data()); null when
      // `current()` moved on meanwhile.
      search: function (term, current) {
        return self.load().then(function (pf) {
          return pf.search(term);
        }).then(function (found) {
          return current() === term ? found.results : null; // or a newer search replaced this one
        });
      }
    };
    return self;
  }

  // As the reader types, Pagefind is loaded and fetches the index chunks the words need (its `preload`, as its
  // own UI does): by the time the search is asked for, one chunk per month index is there, and the search is
  // the search. Not for a word's first letters (a prefix of one or two letters, or one Chinese character, spans
  // many chunks of every index, which then delay the search) nor while an input method composes (its letters).
  function preloadAsTyped(input, search) {
    var typed = null;
    input.addEventListener("input", function (event) {
      clearTimeout(typed);
      search.load().catch(function () { /* the search says */ });
      if (event.isComposing) return;
      typed = setTimeout(function () {
        var term = input.value.trim();
        var last = term.split(/\s+/).pop();
        var enough = /[\u3400-\u9fff]/.test(last) ? last.length >= 2 : last.length >= 3;
        if (enough) search.load().then(function (pf) { return pf.preload(term); }).catch(function () { /* the search says */ });
      }, 60);
    });
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
    status.textContent = "Searching…";
    var started = performance.now();
    var id = (results.searchId = (results.searchId || 0) + 1); // a later search's results replace these
    search.search(term, function () { return input.value.trim(); }).then(function (found) {
      if (found === null) return null;
      var next = 0;
      function page() { // the next SHOWN results, the stub left out; then the count and the button
        var slice = found.slice(next, next + SHOWN);
        next += slice.length;
        return Promise.all(slice.map(function (r) { return r.data(); })).then(function (pages) {
          if (results.searchId !== id) return;
          pages.forEach(function (p) { if (sitePath(p.url) !== STUB) results.appendChild(item(p)); });
          var shown = results.children.length;
          status.textContent = next < found.length
            ? "The best " + shown + " papers for “" + term + "”; more below"
            : shown + (shown === 1 ? " paper" : " papers") + " for “" + term + "”";
          more.textContent = "More results";
          more.hidden = next >= found.length;
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
      status.textContent = "Search is unavailable here (" + error + "). Serve the folder over HTTP: " +
        "browsers do not load scripts of modules from file://.";
    });
  }

  // search.html: Pagefind is loaded as the page opens, so it is ready by the time the reader has typed.
  function searchPage(results, header) {
    var form = document.getElementById("search-form");
    var input = document.getElementById("q");
    var status = document.getElementById("search-status");
    var days = JSON.parse(results.getAttribute("data-days") || "[]");
    var search = searcher(function () { return Promise.resolve(days); });
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
    search.load().then(function () {
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
      search.load().then(function () {
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

  function item(page) {
    var path = sitePath(page.url);
    var li = document.createElement("li");
    var link = document.createElement("a");
    link.href = new URL(path, SITE).href; // from the site's root: any base path works
    link.textContent = (page.meta && page.meta.title) || path;
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
