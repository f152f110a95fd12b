// While a reduction runs, reload its panel (not the page: a maintainer may be typing) every few seconds.
(function () {
  "use strict";
  const PERIOD_MS = 3000;

  function schedule() {
    const panel = document.getElementById("reduction");
    if (!panel || !panel.dataset.active) return;
    setTimeout(refresh, PERIOD_MS);
  }

  async function refresh() {
    const panel = document.getElementById("reduction");
    if (!panel) return;
    try {
      const response = await fetch(panel.dataset.url, { credentials: "same-origin" });
      if (response.ok) {
        // The server renders it with every fuzzer-controlled string escaped.
        const holder = document.createElement("div");
        holder.innerHTML = await response.text();
        const fresh = holder.querySelector("#reduction");
        if (fresh) panel.replaceWith(fresh);
      }
    } finally {
      schedule();
    }
  }

  document.addEventListener("DOMContentLoaded", schedule);
})();
