// Filters the rows of a table as the reader types (the Rosetta table). Local script, no dependencies.
function xlateFilterSetup() {
  document.querySelectorAll("input.xl-filter").forEach(function (input) {
    var box = document.getElementById(input.dataset.target);
    if (!box) return;
    input.addEventListener("input", function () {
      var needle = input.value.trim().toLowerCase();
      box.querySelectorAll("tbody tr").forEach(function (row) {
        row.style.display = !needle || row.textContent.toLowerCase().indexOf(needle) >= 0 ? "" : "none";
      });
    });
  });
}
if (typeof document$ !== "undefined") { document$.subscribe(xlateFilterSetup); } else { document.addEventListener("DOMContentLoaded", xlateFilterSetup); }
