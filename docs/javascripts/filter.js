// Filters the rows of a table as the reader types (the Rosetta table). Local script, no dependencies.
// A row matches when every word typed is a whole word of the row: its text or its concept's other names
// (aliases, abbreviations, symbols: the data-aka attribute of its link), so `wave64` finds Warp size and
// `warp` does not find every row that merely contains "warpgroup". Where no row has a word whole (a word
// still being typed), words are matched at their start. A category's group row stays while any of its
// rows does.
function xlateWords(text) {
  return text.toLowerCase().split(/[^\w.:\[\]-]+/).flatMap(function (w) {
    var parts = [w];
    // `mx.eval` is also `eval`; `__syncthreads()` also `__syncthreads`; `thread-block` also `thread`, `block`.
    w.split(/[.:\-\[\]()]+/).forEach(function (p) { if (p && p !== w) parts.push(p); });
    return parts;
  }).filter(function (w) { return w.length > 0; });
}
function xlateFilterSetup() {
  document.querySelectorAll("input.xl-filter").forEach(function (input) {
    var box = document.getElementById(input.dataset.target);
    if (!box || input.dataset.ready) return;
    input.dataset.ready = "1";
    var rows = Array.prototype.slice.call(box.querySelectorAll("tbody tr")).map(function (row) {
      var link = row.querySelector("a[data-aka]");
      var group = row.querySelector(".xl-group-name");
      if (group) row.classList.add("xl-group");
      var text = row.textContent + " " + (link ? link.getAttribute("data-aka") : "");
      return {row: row, group: !!group, words: new Set(xlateWords(text)), list: xlateWords(text)};
    });
    input.addEventListener("input", function () {
      var needles = xlateWords(input.value.trim());
      var whole = function (r) { return needles.every(function (n) { return r.words.has(n); }); };
      var start = function (r) { return needles.every(function (n) { return r.list.some(function (w) { return w.indexOf(n) === 0; }); }); };
      var test = rows.some(function (r) { return !r.group && whole(r); }) ? whole : start;
      var lastGroup = null, groupShown = false;
      rows.forEach(function (r) {
        if (r.group) {
          if (lastGroup) lastGroup.style.display = groupShown || !needles.length ? "" : "none";
          lastGroup = r.row; groupShown = false;
          return;
        }
        var shown = !needles.length || test(r);
        r.row.style.display = shown ? "" : "none";
        groupShown = groupShown || shown;
      });
      if (lastGroup) lastGroup.style.display = groupShown || !needles.length ? "" : "none";
    });
  });
}
if (typeof document$ !== "undefined") { document$.subscribe(xlateFilterSetup); } else { document.addEventListener("DOMContentLoaded", xlateFilterSetup); }
