// Live campaign page: poll the progress endpoint while the campaign runs and
// update the numbers and the bucket table in place. Every value is written
// with textContent, never innerHTML: bucket titles come from fuzzer output.
(function () {
  "use strict";
  const root = document.getElementById("campaign");
  if (!root) return;
  const url = root.dataset.progressUrl;
  const POLL_MS = 1000;

  function setText(id, value) {
    const node = document.getElementById(id);
    if (node) node.textContent = String(value);
  }

  function renderBuckets(buckets) {
    const body = document.getElementById("buckets");
    const rows = buckets.map(function (bucket) {
      const row = document.createElement("tr");
      const cells = ["#" + bucket.id, null, bucket.kind, bucket.status, bucket.hits];
      cells.forEach(function (value, index) {
        const cell = document.createElement("td");
        if (index === 1) {
          const link = document.createElement("a");
          link.href = bucket.url;
          link.textContent = bucket.title;
          cell.appendChild(link);
        } else {
          cell.textContent = String(value);
        }
        if (index === 4) cell.className = "num";
        row.appendChild(cell);
      });
      return row;
    });
    body.replaceChildren.apply(body, rows);
  }

  function render(progress) {
    const status = document.getElementById("status");
    status.textContent = progress.status_display;
    status.className = "status status-" + progress.status;
    setText("elapsed", progress.elapsed_seconds);
    setText("executions", progress.executions);
    setText("rate", progress.executions_per_second);
    setText("findings", progress.findings);
    setText("bucket-count", progress.buckets.length);
    const error = document.getElementById("error");
    error.textContent = progress.error;
    error.hidden = !progress.error;
    renderBuckets(progress.buckets);
    if (!progress.active) {
      const stop = document.getElementById("stop-form");
      if (stop) stop.remove();
    }
  }

  async function poll() {
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (response.ok) {
        const progress = await response.json();
        render(progress);
        if (!progress.active) return;
      }
    } catch (error) {
      // A dropped request (server restart) is retried on the next tick.
    }
    window.setTimeout(poll, POLL_MS);
  }

  if (root.dataset.active === "true") window.setTimeout(poll, POLL_MS);
})();
